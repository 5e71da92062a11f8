import ParleyCore
import ParleyCrypto
import Synchronization

/// Ballot envelopes addressed to this node, waiting to be opened and checked by a task of their own
/// (`Node.checkEnvelopes`), in two lanes (docs/BALLOTS.md §4, "Checking an envelope"): envelopes
/// from senders within their verification budget, and, behind them, envelopes from senders whose
/// ballots failed their ring check too often lately. The checker works the second lane only when
/// the first is empty, so a member's fakes, even passed on by honest relays, never make this node
/// refuse an honest envelope or check it after them: they cost at most the checker's one task. A
/// ring verification at 256 electors takes about 50 ms of a core; opening and decoding an envelope,
/// a fraction of a millisecond.
final class EnvelopeChecks: Sendable {
    struct Waiting: Sendable {
        let sender: PeerID
        let sealed: [UInt8]
    }

    /// Why an envelope was not queued.
    enum Refusal: Error {
        /// These exact sealed bytes came before: no honest node sends one envelope twice (a
        /// publisher's resend is sealed afresh).
        case duplicate
        /// Its sender already has `maxQueuedPerSender` waiting, or its lane is full.
        case queueFull
    }

    /// What the checker does next.
    enum Next: Sendable {
        /// Open and check this envelope.
        case check(Waiting)
        /// Drop this one unchecked: its sender went over budget while it waited, and the
        /// over-budget lane is full.
        case refuse(Waiting)
    }

    /// A first-in, first-out lane.
    private struct Lane {
        private var items: [Waiting] = []
        private var head = 0
        var count: Int { items.count - head }
        mutating func append(_ item: Waiting) { items.append(item) }
        mutating func popFirst() -> Waiting? {
            guard head < items.count else { return nil }
            let item = items[head]
            head += 1
            if head == items.count {
                items.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 256, head * 2 >= items.count {
                items.removeFirst(head)
                head = 0
            }
            return item
        }
    }

    private struct State {
        var queuedBySender: [PeerID: Int] = [:]
        var inBudget = Lane()
        var overBudget = Lane()
        var seen = RecentSet<Bytes32>(capacity: EnvelopeChecks.seenMemory)
        /// Failed ring verifications per sender in the current wall-clock minute, across polls.
        var failedThisMinute: [PeerID: (minute: Int64, count: Int)] = [:]
        /// Secret polls envelopes named lately, decoded (a message's content never changes).
        var polls: [MessageID: (message: Message, secret: SecretPoll)] = [:]

        func failures(of sender: PeerID, minute: Int64) -> Int {
            failedThisMinute[sender].flatMap { $0.minute == minute ? $0.count : nil } ?? 0
        }

        func isOverBudget(_ sender: PeerID, minute: Int64) -> Bool {
            failures(of: sender, minute: minute) >= EnvelopeChecks.failedRingChecksPerSenderPerMinute
        }
    }

    /// Ring verifications one sending member may make this node fail in a wall-clock minute, across
    /// polls, before its envelopes wait behind everyone else's for the rest of that minute. An honest
    /// node only passes on ballots that verify, but a first relay passes on a hostile voter's fakes
    /// unopened, and a publisher hands the creator its ballots in the same frame as it forwards
    /// others: so going over budget never refuses a sender's envelopes, it only demotes them, and
    /// the sender is back in budget the next minute.
    static let failedRingChecksPerSenderPerMinute = 6
    /// Envelopes one member may have waiting here, in both lanes: a publisher hands the creator every
    /// ballot it holds at once, at most a whole electorate.
    static let maxQueuedPerSender = SecretPoll.maxElectorate
    /// Envelopes waiting here from senders within their budget (about 9 MB at the largest size).
    static let maxQueued = 1_024
    /// Envelopes waiting here from senders over their budget; past this the newest is refused.
    static let maxQueuedOverBudget = 1_024
    /// Sealed envelopes remembered to refuse a replay.
    static let seenMemory = 8_192
    /// Senders whose failures this minute are remembered; past this the ones of earlier minutes
    /// are forgotten, which only happens with thousands of members.
    static let maxFailingSenders = 16_384
    /// Decoded secret polls kept: more than a chat has open at once.
    static let maxPolls = 64

    private let state = Mutex(State())
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation
    private let verified = Atomic<Int>(0)

    /// Ring verifications made on envelopes (not in tallies): how tests see what a flood cost.
    var ringVerifications: Int { verified.load(ordering: .relaxed) }

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: Void.self)
    }

    /// One element per envelope queued: for each, the checking task takes `next(wallMillis:)`.
    var arrivals: AsyncStream<Void> { stream }

    /// Queues an envelope for the checking task, in the lane its sender's budget puts it in, unless
    /// it is a replay, its sender's share of the queue is full, or its lane is full. A hash of the
    /// sealed bytes: no ring work, no opening.
    func enqueue(_ sealed: [UInt8], from sender: PeerID, wallMillis: Int64) throws(Refusal) {
        let digest = sealed.withUnsafeBytes { BLAKE2b.hash256Inline($0) }
        try state.withLock { state throws(Refusal) in
            guard !state.seen.contains(digest) else { throw .duplicate }
            guard state.queuedBySender[sender, default: 0] < Self.maxQueuedPerSender else { throw .queueFull }
            let item = Waiting(sender: sender, sealed: sealed)
            if state.isOverBudget(sender, minute: wallMillis / 60_000) {
                guard state.overBudget.count < Self.maxQueuedOverBudget else { throw .queueFull }
                state.overBudget.append(item)
            } else {
                guard state.inBudget.count < Self.maxQueued else { throw .queueFull }
                state.inBudget.append(item)
            }
            state.seen.insert(digest)
            state.queuedBySender[sender, default: 0] += 1
        }
        continuation.yield()
    }

    /// The envelope the checking task takes next, one per element of `arrivals`: the oldest from a
    /// sender within its budget, else the oldest of the rest. One whose sender went over budget while
    /// it waited moves behind the rest instead (or is refused if their lane is full).
    func next(wallMillis: Int64) -> Next? {
        let minute = wallMillis / 60_000
        return state.withLock { state -> Next? in
            while let item = state.inBudget.popFirst() {
                if !state.isOverBudget(item.sender, minute: minute) {
                    Self.taken(item, &state)
                    return .check(item)
                }
                guard state.overBudget.count < Self.maxQueuedOverBudget else {
                    Self.taken(item, &state)
                    return .refuse(item)
                }
                state.overBudget.append(item)
            }
            guard let item = state.overBudget.popFirst() else { return nil }
            Self.taken(item, &state)
            return .check(item)
        }
    }

    private static func taken(_ item: Waiting, _ state: inout State) {
        state.queuedBySender[item.sender, default: 1] -= 1
        if state.queuedBySender[item.sender] == 0 { state.queuedBySender[item.sender] = nil }
    }

    /// Envelopes waiting in each lane.
    var queued: (inBudget: Int, overBudget: Int) { state.withLock { ($0.inBudget.count, $0.overBudget.count) } }

    /// Whether `sender` made this node fail `failedRingChecksPerSenderPerMinute` ring checks in the
    /// current minute: its envelopes wait behind everyone else's.
    func isOverBudget(_ sender: PeerID, wallMillis: Int64) -> Bool {
        state.withLock { $0.isOverBudget(sender, minute: wallMillis / 60_000) }
    }

    /// A secret poll decoded earlier for an envelope, if it is still kept.
    func poll(_ id: MessageID) -> (message: Message, secret: SecretPoll)? { state.withLock { $0.polls[id] } }

    func remember(_ poll: Message, _ secret: SecretPoll) {
        state.withLock { state in
            if state.polls.count >= Self.maxPolls { state.polls.removeAll() }
            state.polls[poll.id] = (poll, secret)
        }
    }

    /// One ring verification of a ballot `sender` passed on, and whether it failed.
    func noteRingVerification(from sender: PeerID, failed: Bool, wallMillis: Int64) {
        verified.add(1, ordering: .relaxed)
        guard failed else { return }
        let minute = wallMillis / 60_000
        state.withLock { state in
            if state.failedThisMinute.count >= Self.maxFailingSenders {
                state.failedThisMinute = state.failedThisMinute.filter { $0.value.minute == minute }
            }
            state.failedThisMinute[sender] = (minute, state.failures(of: sender, minute: minute) + 1)
        }
    }
}
