/// Who may introduce whom (PROTOCOL.md §12a), and how often: the rules of rendezvous as a value,
/// without I/O. Members behind NATs that cannot reach each other ask a member they both reach to
/// introduce them; it tells each the other's observed address, the requester opens its NAT toward the
/// target and the target handshakes through it.
public struct Rendezvous: Sendable {
    /// A member is asked about at most this often while it shows online (through a relay), which
    /// keeps its beats relayed; otherwise each unanswered question doubles the wait, up to `maxAskInterval`.
    public static let askInterval: Duration = .seconds(10)
    public static let maxAskInterval: Duration = .seconds(320)
    /// One pair is introduced at most once per interval.
    public static let introduceInterval: Duration = .seconds(5)
    /// A `meet` is acted on only when it answers a question this recent, at most once per introducer and question.
    public static let meetWindow: Duration = .seconds(10)
    /// How many members one question goes to (taking turns among those this node reaches).
    public static let introducersAsked = 2
    /// A member this node holds an address for is first asked about after this long unreached: its
    /// own handshakes (retried every second) get their chance first. Without it, every member of a
    /// large chat just joined asked about every other whose handshake had not completed yet, and each
    /// question subscribed it to 30 s of relayed beats it no longer needed a moment later. A member
    /// with no address cannot be reached otherwise, so it is asked about at once.
    public static let graceWithAddress: Duration = .seconds(5)
    /// The wait after the `count`th unanswered question or punching round in a row: 10 s, 20 s,
    /// 40 s, …, at most `maxAskInterval`.
    static func backoff(after count: Int) -> Duration {
        min(askInterval * (1 << min(count - 1, 5)), maxAskInterval)
    }

    /// Entries kept per table before the expired ones are dropped.
    static let pruneAbove = 1_024

    private struct Question {
        var next: Duration
        /// Unanswered questions in a row (0 while the peer shows online), for the wait.
        var attempts: Int
        /// Questions so far, for taking turns among the introducers.
        var asks: Int
        var introducers: Set<PeerID>
        var at: Duration

        /// The wait before a first question (`graceWithAddress`): nothing asked, so no meet answers it.
        static func grace(until next: Duration, at now: Duration) -> Question {
            Question(next: next, attempts: 0, asks: 0, introducers: [], at: now)
        }

        var isGrace: Bool { asks == 0 }
    }

    /// How long a question keeps its asker subscribed to the target's beats (a question comes every
    /// `askInterval` while the target shows online through it).
    public static let relayFor: Duration = .seconds(30)
    /// Askers whose beats of one target are relayed, at most.
    static let relaySubscribersPerPeer = 64

    private var asked: [PeerID: Question] = [:]
    private var punchedAsRequester = PunchRounds<PeerID>()
    /// Kept per introducer: a member that makes up questions of others' can only hold back its own
    /// introductions, never another introducer's.
    private var punchedAsTarget = PunchRounds<PeerPair>()
    /// Where this node starts taking turns among introducers, so that the members of a chat that
    /// all ask at once do not all start with the same one.
    private let firstTurn: Int
    private var introduced: [PeerPair: Duration] = [:]
    /// Target → askers and until when this node relays the target's presence beats to them.
    private var relays: [PeerID: [PeerID: Duration]] = [:]
    /// When the last subscription of `relays` ends.
    private var relayingUntil: Duration = .zero

    /// How this node came to an introduction: it asked about the other member (`meet`), or the other
    /// member asked about it (`meetAsked`).
    public enum Side: Sendable {
        case requester
        case target
    }

    /// What goes toward the address of an introduction: at once an opening, a handshake that leaves
    /// with `openingHopLimit`; then, unless `handshakesAfter` is nil, handshakes at full TTL from that
    /// long after, 1 s apart (PROTOCOL.md §12a).
    public struct Punch: Equatable, Sendable {
        public let handshakesAfter: Duration?

        public init(handshakesAfter: Duration?) { self.handshakesAfter = handshakesAfter }
    }

    /// An opening leaves this node's own router, which maps it and so lets the other member's
    /// handshakes in, and dies before the other member's router. A router that takes an unsolicited
    /// datagram itself would otherwise keep its port for the sender, and map its own member's packets
    /// toward that sender to another port: a punch arriving there first would close the hole it was
    /// meant to open.
    public static let openingHopLimit: UInt8 = 2
    /// The target handshakes at full TTL this long after its opening: by then the requester, told by
    /// the same introducer at the same time, has sent its own opening.
    public static let targetHandshakeDelay: Duration = .milliseconds(250)
    /// A requester only opens in its first round: its handshakes could reach a target that has not
    /// opened (not a member yet, say) and take its router's port. From the second round on, it
    /// handshakes too, after the target's (the opening may not have reached past its router: more
    /// than one NAT in front of it).
    public static let requesterHandshakeDelay: Duration = .seconds(1)

    /// `firstTurn`: where questions start in the sorted introducers (the node uses the first byte of its id).
    public init(firstTurn: Int = 0) { self.firstTurn = firstTurn }

    /// The members to ask about `peer` now, taking turns among `candidates` (those this node
    /// reaches, in a fixed order), or none yet. While `peer` shows online (its beats relayed), it is
    /// asked about every `askInterval`; otherwise each question doubles the wait, up to `maxAskInterval`.
    /// When this node `holdsAddress` for `peer`, the first question waits `graceWithAddress` from the
    /// first time it was found unreached.
    public mutating func introducers(
        toAsk peer: PeerID, among candidates: [PeerID], showsOnline: Bool, holdsAddress: Bool = false, now: Duration
    ) -> [PeerID] {
        guard !candidates.isEmpty else { return [] }
        if asked[peer] == nil, holdsAddress, !showsOnline {
            record(.grace(until: now + Self.graceWithAddress, at: now), about: peer, now: now)
            return []
        }
        let previous = asked[peer]
        // A member that shows online (relayed) again is asked about at the online pace at once.
        if let previous, now < (showsOnline && previous.attempts > 0 ? previous.at + Self.askInterval : previous.next) {
            return []
        }
        let attempts = showsOnline ? 0 : (previous?.attempts ?? 0) + 1
        let wait =
            showsOnline ? Self.askInterval : Self.backoff(after: attempts)
        let asks = (previous?.asks ?? 0) + 1
        let turn = firstTurn + (asks - 1) * Self.introducersAsked
        let chosen = (0..<min(Self.introducersAsked, candidates.count)).map {
            candidates[(turn + $0) % candidates.count]
        }
        let question = Question(next: now + wait, attempts: attempts, asks: asks, introducers: Set(chosen), at: now)
        return record(question, about: peer, now: now) ? chosen : []
    }

    /// Keeps `question` about `peer`, dropping expired entries to make room for a new one; false (and
    /// nothing kept) when the table is full of entries still in use.
    @discardableResult
    private mutating func record(_ question: Question, about peer: PeerID, now: Duration) -> Bool {
        if asked[peer] == nil, asked.count >= Self.pruneAbove {
            asked = asked.filter { now < $0.value.next + Self.maxAskInterval }
        }
        guard asked[peer] != nil || asked.count < Self.pruneAbove else { return false }
        asked[peer] = question
        return true
    }

    /// `peer` is reached: questions and punching rounds about it start over.
    public mutating func reached(_ peer: PeerID) {
        asked[peer] = nil
        punchedAsRequester.reset(peer)
        punchedAsTarget.reset { $0.second == peer }
    }

    /// Whether to introduce `requester` to `target` now; records the introduction when so.
    public mutating func shouldIntroduce(_ requester: PeerID, to target: PeerID, now: Duration) -> Bool {
        guard requester != target else { return false }
        return Self.admit(
            PeerPair(first: requester, second: target), into: &introduced, every: Self.introduceInterval, now: now)
    }

    /// What to send toward the address in `introducer`'s introduction to `peer`, or nil: nothing now.
    /// As the requester (`meet`), it must answer a question this node asked that introducer about that
    /// peer within `meetWindow`, once per introducer and question, in the current punching round or a
    /// new one that is due (`PunchRounds`; a round is the answers to one question). As the target
    /// (`meetAsked`), each introducer's introductions about `peer` have rounds of their own, one
    /// introduction each. Being a target also means the address held for `peer` may not work
    /// (a stale contact address, one behind its NAT): its `graceWithAddress` ends, or is skipped if not
    /// begun, and the next round asks.
    public mutating func punch(_ side: Side, toward peer: PeerID, from introducer: PeerID, now: Duration) -> Punch? {
        switch side {
        case .requester:
            guard let question = asked[peer], !question.isGrace, question.introducers.contains(introducer),
                now - question.at < Self.meetWindow,
                let round = punchedAsRequester.admit(peer, peer, from: introducer, roundStart: question.at, now: now)
            else { return nil }
            return Punch(handshakesAfter: round > 1 ? Self.requesterHandshakeDelay : nil)
        case .target:
            if asked[peer]?.isGrace ?? true { record(.grace(until: now, at: now), about: peer, now: now) }
            let key = PeerPair(first: introducer, second: peer)
            guard punchedAsTarget.admit(key, peer, from: introducer, roundStart: now, now: now) != nil else {
                return nil
            }
            return Punch(handshakesAfter: Self.targetHandshakeDelay)
        }
    }

    /// `requester` asked about `target`, so it has no session with it: relay `target`'s beats to it
    /// for `relayFor`.
    public mutating func relayBeats(of target: PeerID, to requester: PeerID, now: Duration) {
        guard requester != target else { return }
        var subscribers = (relays[target] ?? [:]).filter { $0.value > now }
        guard subscribers[requester] != nil || subscribers.count < Self.relaySubscribersPerPeer else { return }
        subscribers[requester] = now + Self.relayFor
        relayingUntil = max(relayingUntil, now + Self.relayFor)
        if relays[target] == nil, relays.count >= Self.pruneAbove {
            relays = relays.filter { $0.value.values.contains { $0 > now } }
        }
        guard relays[target] != nil || relays.count < Self.pruneAbove else { return }
        relays[target] = subscribers
    }

    /// Whether any member is subscribed to any target's beats now: a node nobody relays through skips
    /// the per-target lookups.
    public func mayRelay(now: Duration) -> Bool { now < relayingUntil }

    /// The askers `target`'s beats go to now.
    public func beatSubscribers(of target: PeerID, now: Duration) -> [PeerID] {
        (relays[target] ?? [:]).filter { $0.value > now }.map(\.key)
    }

    /// Whether one chat of `memberships` (chat → members) holds all of `peers`.
    public static func shareAChat(_ peers: Set<PeerID>, in memberships: [ChatID: [PeerID]]) -> Bool {
        memberships.values.contains { peers.isSubset(of: $0) }
    }

    private static func admit<Key: Hashable>(
        _ key: Key, into table: inout [Key: Duration], every interval: Duration, now: Duration
    ) -> Bool {
        if let last = table[key], now - last < interval { return false }
        if table.count >= pruneAbove { table = table.filter { now - $0.value < interval } }
        // Still full of fresh entries: a flood of distinct keys; refuse rather than grow.
        guard table.count < pruneAbove else { return false }
        table[key] = now
        return true
    }
}
