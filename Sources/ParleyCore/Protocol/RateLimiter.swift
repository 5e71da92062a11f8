/// Per-source token buckets, checked before any crypto work is done for a datagram.
///
/// Datagrams fall into three classes, each with its own bucket per source address:
/// - `handshake`: handshake inits and responses and announces. Each costs public-key work
///   (sealed-box open, Ed25519 verify, X25519), so these are limited tightly, per source and in total.
/// - `unauthenticated`: datagrams that cannot be authenticated at all (malformed, wrong version,
///   unknown session index). They cost little, but a flood of them is counted and cut short.
/// - `session`: data packets for a session we hold. Generous: a peer bursting tens of thousands of
///   datagrams a second is never limited; only a forged-tag flood against a known index is.
///
/// A plain value driven by the caller's clock (`now` is monotonic time), so it is tested without
/// sleeping. Sources are bounded: past `maxSources`, an arbitrary source is forgotten, which only
/// gives it a fresh bucket; the global handshake bucket still bounds the total.
public struct RateLimiter: Sendable {
    public enum Class: Sendable, Hashable, CaseIterable {
        case handshake, unauthenticated, session
    }

    /// A token bucket's shape: `rate` tokens per second, holding at most `burst`.
    public struct Limit: Sendable, Hashable {
        public var rate: Double
        public var burst: Double

        public init(rate: Double, burst: Double) {
            self.rate = rate
            self.burst = burst
        }
    }

    public struct Configuration: Sendable, Hashable {
        /// Handshake inits, responses and announces from one source address.
        public var handshakePerSource = Limit(rate: 20, burst: 50)
        /// Handshake inits, responses and announces from all sources together.
        public var handshakeTotal = Limit(rate: 500, burst: 1_000)
        /// Malformed datagrams and data packets for unknown sessions from one source.
        public var unauthenticatedPerSource = Limit(rate: 1_000, burst: 5_000)
        /// Data packets for a session we hold, from one source: a file's chunks come at up to ~90,000
        /// datagrams a second from one member on loopback (§13e).
        public var sessionPerSource = Limit(rate: 150_000, burst: 150_000)
        /// Source addresses tracked at once.
        public var maxSources = 4_096

        public init() {}

        func limit(for kind: Class) -> Limit {
            switch kind {
            case .handshake: handshakePerSource
            case .unauthenticated: unauthenticatedPerSource
            case .session: sessionPerSource
            }
        }
    }

    /// One token bucket (also a served file's chunk budget per member, §13e).
    public struct Bucket: Sendable {
        var tokens: Double
        var updated: Duration

        public init(limit: Limit, now: Duration) {
            tokens = limit.burst
            updated = now
        }

        /// Refills for the time since the last update, then takes one token if there is one.
        public mutating func take(limit: Limit, now: Duration) -> Bool {
            if now > updated {
                let elapsed =
                    Double((now - updated).components.seconds) + Double((now - updated).components.attoseconds) * 1e-18
                tokens = min(limit.burst, tokens + elapsed * limit.rate)
                updated = now
            }
            guard tokens >= 1 else { return false }
            tokens -= 1
            return true
        }
    }

    /// One source's buckets, created on first use.
    private struct Source: Sendable {
        var buckets: [Class: Bucket] = [:]
    }

    public let configuration: Configuration
    private var sources: [PeerAddress: Source] = [:]
    private var handshakeTotal: Bucket

    public init(configuration: Configuration = .init(), now: Duration = .zero) {
        self.configuration = configuration
        handshakeTotal = Bucket(limit: configuration.handshakeTotal, now: now)
    }

    /// Sources with buckets: at most `maxSources`.
    public var trackedSources: Int { sources.count }

    /// Takes a token for one datagram of `kind` from `source`; false means drop it unprocessed.
    public mutating func admit(_ kind: Class, from address: PeerAddress, now: Duration) -> Bool {
        let limit = configuration.limit(for: kind)
        if sources[address] == nil, sources.count >= configuration.maxSources, let victim = sources.keys.first {
            sources[victim] = nil
        }
        var bucket = sources[address]?.buckets[kind] ?? Bucket(limit: limit, now: now)
        let allowed = bucket.take(limit: limit, now: now)
        sources[address, default: Source()].buckets[kind] = bucket
        guard allowed else { return false }
        // A source's own budget comes first, so one source cannot drain the shared one past its share.
        guard kind == .handshake else { return true }
        return handshakeTotal.take(limit: configuration.handshakeTotal, now: now)
    }
}
