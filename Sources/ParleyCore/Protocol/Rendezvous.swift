/// Who may introduce whom (PROTOCOL.md §12a), and how often: the rules of rendezvous as a value,
/// without I/O. Members behind NATs that cannot reach each other ask a member they both reach to
/// introduce them; it tells each the other's observed address and both handshake at once.
public struct Rendezvous: Sendable {
    /// A member is asked about, and introduces one pair, at most once per interval.
    public static let askInterval: Duration = .seconds(10)
    public static let introduceInterval: Duration = .seconds(5)
    /// A `meet` for one peer is acted on at most once per interval.
    public static let meetInterval: Duration = .seconds(10)
    /// How many members one question goes to.
    public static let introducersAsked = 2
    /// Entries kept per table before the expired ones are dropped.
    static let pruneAbove = 1_024

    /// How long a question keeps its asker subscribed to the target's beats (a question comes every
    /// `askInterval` while the two have no session).
    public static let relayFor: Duration = .seconds(30)
    /// Askers whose beats of one target are relayed, at most.
    static let relaySubscribersPerPeer = 64

    private var asked: [PeerID: Duration] = [:]
    /// Target → askers and until when this node relays the target's presence beats to them.
    private var relays: [PeerID: [PeerID: Duration]] = [:]
    private var introduced: [Pair: Duration] = [:]
    private var met: [PeerID: Duration] = [:]

    private struct Pair: Hashable {
        let requester: PeerID
        let target: PeerID
    }

    public init() {}

    /// Whether to ask (again) for an introduction to `peer` now; records the question when so.
    public mutating func shouldAsk(about peer: PeerID, now: Duration) -> Bool {
        Self.admit(peer, into: &asked, every: Self.askInterval, now: now)
    }

    /// Whether to introduce `requester` to `target` now; records the introduction when so.
    public mutating func shouldIntroduce(_ requester: PeerID, to target: PeerID, now: Duration) -> Bool {
        guard requester != target else { return false }
        return Self.admit(Pair(requester: requester, target: target), into: &introduced, every: Self.introduceInterval, now: now)
    }

    /// `requester` asked about `target`, so it has no session with it: relay `target`'s beats to it
    /// for `relayFor`.
    public mutating func relayBeats(of target: PeerID, to requester: PeerID, now: Duration) {
        guard requester != target else { return }
        var subscribers = (relays[target] ?? [:]).filter { $0.value > now }
        guard subscribers[requester] != nil || subscribers.count < Self.relaySubscribersPerPeer else { return }
        subscribers[requester] = now + Self.relayFor
        if relays[target] == nil, relays.count >= Self.pruneAbove { relays = relays.filter { $0.value.values.contains { $0 > now } } }
        guard relays[target] != nil || relays.count < Self.pruneAbove else { return }
        relays[target] = subscribers
    }

    /// The askers `target`'s beats go to now.
    public func beatSubscribers(of target: PeerID, now: Duration) -> [PeerID] {
        (relays[target] ?? [:]).filter { $0.value > now }.map(\.key)
    }

    /// Whether to act on a `meet` for `peer` now; records it when so.
    public mutating func shouldMeet(_ peer: PeerID, now: Duration) -> Bool {
        Self.admit(peer, into: &met, every: Self.meetInterval, now: now)
    }

    /// The members of `memberships` (chat → members) that are in a chat with all of `peers`.
    public static func sharing(_ peers: Set<PeerID>, in memberships: [ChatID: [PeerID]]) -> Set<PeerID> {
        memberships.values.reduce(into: Set<PeerID>()) { shared, members in
            let set = Set(members)
            if peers.isSubset(of: set) { shared.formUnion(set) }
        }
    }

    private static func admit<Key: Hashable>(_ key: Key, into table: inout [Key: Duration], every interval: Duration, now: Duration) -> Bool {
        if let last = table[key], now - last < interval { return false }
        if table.count >= pruneAbove { table = table.filter { now - $0.value < interval } }
        // Still full of fresh entries: a flood of distinct keys; refuse rather than grow.
        guard table.count < pruneAbove else { return false }
        table[key] = now
        return true
    }
}
