import ParleyCore
import ParleyCrypto
import Synchronization

/// Ballot envelopes addressed to this node, waiting to be opened and checked by a task of their own
/// (`Node.checkEnvelopes`), and what lets a node refuse a fake one before it costs a ring
/// verification (docs/BALLOTS.md §4, "Checking an envelope"). A ring verification at 256 electors
/// takes about 50 ms of a core; opening and decoding an envelope, a fraction of a millisecond.
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
        /// Its sender already has `maxQueuedPerSender` waiting, or the queue is full.
        case queueFull
    }

    private struct SenderPoll: Hashable {
        let sender: PeerID
        let poll: MessageID
    }

    private struct State {
        var queuedBySender: [PeerID: Int] = [:]
        var queued = 0
        var seen = RecentSet<Bytes32>(capacity: EnvelopeChecks.seenMemory)
        var failed: [SenderPoll: Int] = [:]
        /// Failed ring verifications per sender in the current wall-clock minute, across polls.
        var failedThisMinute: [PeerID: (minute: Int64, count: Int)] = [:]
        /// Secret polls envelopes named lately, decoded (a message's content never changes).
        var polls: [MessageID: (message: Message, secret: SecretPoll)] = [:]
    }

    /// Ring verifications one sending member may make this node fail per poll. An honest node only
    /// passes on ballots that verify; one that relays a hostile voter's fakes loses its standing
    /// with this node for that poll, and the honest ballots it carried come back by their voters'
    /// retries (§4), through others.
    static let failedRingChecksPerSenderPerPoll = 3
    /// The same across polls, per wall-clock minute: a member that opens many polls of its own
    /// gains nothing by it.
    static let failedRingChecksPerSenderPerMinute = 6
    /// Envelopes one member may have waiting here: a publisher hands the creator every ballot it
    /// holds at once, at most a whole electorate.
    static let maxQueuedPerSender = SecretPoll.maxElectorate
    /// Envelopes waiting here from everyone (about 9 MB at the largest size).
    static let maxQueued = 1_024
    /// Sealed envelopes remembered to refuse a replay.
    static let seenMemory = 8_192
    /// (sender, poll) pairs whose failures are remembered; past this they are forgotten at once,
    /// which only happens with thousands of open secret polls.
    static let maxFailedPairs = 16_384
    /// Decoded secret polls kept: more than a chat has open at once.
    static let maxPolls = 64

    private let state = Mutex(State())
    private let stream: AsyncStream<Waiting>
    private let continuation: AsyncStream<Waiting>.Continuation
    private let verified = Atomic<Int>(0)

    /// Ring verifications made on envelopes (not in tallies): how tests see what a flood cost.
    var ringVerifications: Int { verified.load(ordering: .relaxed) }

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: Waiting.self)
    }

    /// What the checking task works through, in arrival order.
    var waiting: AsyncStream<Waiting> { stream }

    /// Queues an envelope for the checking task, unless it is a replay or its sender's share of the
    /// queue is full. A hash of the sealed bytes: no ring work, no opening.
    func enqueue(_ sealed: [UInt8], from sender: PeerID) throws(Refusal) {
        let digest = sealed.withUnsafeBytes { BLAKE2b.hash256Inline($0) }
        try state.withLock { state throws(Refusal) in
            guard !state.seen.contains(digest) else { throw .duplicate }
            guard state.queued < Self.maxQueued, state.queuedBySender[sender, default: 0] < Self.maxQueuedPerSender else {
                throw .queueFull
            }
            state.seen.insert(digest)
            state.queued += 1
            state.queuedBySender[sender, default: 0] += 1
        }
        continuation.yield(Waiting(sender: sender, sealed: sealed))
    }

    /// The checking task is done with `envelope`.
    func finished(_ envelope: Waiting) {
        state.withLock { state in
            state.queued -= 1
            state.queuedBySender[envelope.sender, default: 1] -= 1
            if state.queuedBySender[envelope.sender] == 0 { state.queuedBySender[envelope.sender] = nil }
        }
    }

    /// A secret poll decoded earlier for an envelope, if it is still kept.
    func poll(_ id: MessageID) -> (message: Message, secret: SecretPoll)? { state.withLock { $0.polls[id] } }

    func remember(_ poll: Message, _ secret: SecretPoll) {
        state.withLock { state in
            if state.polls.count >= Self.maxPolls { state.polls.removeAll() }
            state.polls[poll.id] = (poll, secret)
        }
    }

    /// Whether `sender` may still make this node verify a ballot's ring on `poll`.
    func mayVerify(from sender: PeerID, poll: MessageID, wallMillis: Int64) -> Bool {
        state.withLock { state in
            let thisMinute = state.failedThisMinute[sender].flatMap { $0.minute == wallMillis / 60_000 ? $0.count : nil } ?? 0
            return thisMinute < Self.failedRingChecksPerSenderPerMinute
                && state.failed[SenderPoll(sender: sender, poll: poll), default: 0] < Self.failedRingChecksPerSenderPerPoll
        }
    }

    /// One ring verification of a ballot `sender` passed on, and whether it failed.
    func noteRingVerification(from sender: PeerID, poll: MessageID, failed: Bool, wallMillis: Int64) {
        verified.add(1, ordering: .relaxed)
        guard failed else { return }
        let minute = wallMillis / 60_000
        state.withLock { state in
            if state.failed.count >= Self.maxFailedPairs { state.failed.removeAll() }
            state.failed[SenderPoll(sender: sender, poll: poll), default: 0] += 1
            if state.failedThisMinute.count >= Self.maxFailedPairs {
                state.failedThisMinute = state.failedThisMinute.filter { $0.value.minute == minute }
            }
            let count = state.failedThisMinute[sender].flatMap { $0.minute == minute ? $0.count : nil } ?? 0
            state.failedThisMinute[sender] = (minute, count + 1)
        }
    }
}
