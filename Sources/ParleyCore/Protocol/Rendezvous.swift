/// Who may introduce whom (PROTOCOL.md §12a), and how often: the rules of rendezvous as a value,
/// without I/O. Members behind NATs that cannot reach each other ask a member they both reach to
/// introduce them; it tells each the other's observed address and both handshake at once.
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

    /// Rounds of punching toward a peer without reaching it: a round is the meets answering one
    /// question (several introducers may answer it, each with the address it observes), and starts
    /// when that question was asked. A round may start `askInterval` after the one before, then
    /// twice as long after each round that did not reach the peer, up to `maxAskInterval`: timed on
    /// this node's own questions, so how long answers take does not shift the schedule. Two members
    /// behind symmetric NATs, who keep asking to keep each other's beats relayed, thereby stop sending
    /// handshakes every 10 s that cannot arrive.
    private struct Punching {
        var rounds: Int
        /// When the next round may start (a question asked at or after it).
        var next: Duration
        /// When the question of the current round was asked.
        var questionAt: Duration
    }

    private var asked: [PeerID: Question] = [:]
    private var punching: [PeerID: Punching] = [:]
    /// Where this node starts taking turns among introducers, so that the members of a chat that
    /// all ask at once do not all start with the same one.
    private let firstTurn: Int
    private var introduced: [Pair: Duration] = [:]
    /// (introducer, peer) → the question whose answer from that introducer was acted on: once each.
    private var met: [Pair: Duration] = [:]
    /// Target → askers and until when this node relays the target's presence beats to them.
    private var relays: [PeerID: [PeerID: Duration]] = [:]
    /// When the last subscription of `relays` ends.
    private var relayingUntil: Duration = .zero

    private struct Pair: Hashable {
        let first: PeerID
        let second: PeerID
    }

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
            showsOnline ? Self.askInterval : min(Self.askInterval * (1 << min(attempts - 1, 5)), Self.maxAskInterval)
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
        punching[peer] = nil
    }

    /// Whether to introduce `requester` to `target` now; records the introduction when so.
    public mutating func shouldIntroduce(_ requester: PeerID, to target: PeerID, now: Duration) -> Bool {
        guard requester != target else { return false }
        return Self.admit(
            Pair(first: requester, second: target), into: &introduced, every: Self.introduceInterval, now: now)
    }

    /// Whether to act on `introducer`'s `meet` for `peer` now: it must answer a question this node
    /// asked that introducer about that peer within `meetWindow`, once per introducer and question, and
    /// belong to the current punching round or be due for a new one (`Punching`).
    /// A `meet` answering no question of this node's is not acted on; but the member it is about asked
    /// about this node, so the address held for it may not work (a stale contact address, one behind
    /// its NAT): its `graceWithAddress` ends, or is skipped if not begun, and the next round asks.
    public mutating func shouldMeet(_ peer: PeerID, from introducer: PeerID, now: Duration) -> Bool {
        if asked[peer]?.isGrace ?? true {
            record(.grace(until: now, at: now), about: peer, now: now)
            return false
        }
        guard let question = asked[peer], question.introducers.contains(introducer), now - question.at < Self.meetWindow
        else { return false }
        let round = punching[peer]
        let newRound = round?.questionAt != question.at
        if newRound, let round, question.at < round.next { return false }
        let pair = Pair(first: introducer, second: peer)
        guard met[pair] != question.at else { return false }
        if newRound, round == nil, punching.count >= Self.pruneAbove {
            punching = punching.filter { now < $0.value.next + Self.maxAskInterval }
            guard punching.count < Self.pruneAbove else { return false }
        }
        if met[pair] == nil, met.count >= Self.pruneAbove {
            // An entry for a question older than the window can never match a meet acted on again.
            met = met.filter { now - $0.value < Self.meetWindow }
            guard met.count < Self.pruneAbove else { return false }
        }
        met[pair] = question.at
        if newRound {
            let rounds = (round?.rounds ?? 0) + 1
            let wait = min(Self.askInterval * (1 << min(rounds - 1, 5)), Self.maxAskInterval)
            punching[peer] = Punching(rounds: rounds, next: question.at + wait, questionAt: question.at)
        }
        return true
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
