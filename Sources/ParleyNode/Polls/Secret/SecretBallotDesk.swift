import Foundation
import ParleyCore
import ParleyCrypto
import Synchronization

/// The timers and caches of secret ballots, in memory (what must survive a crash is in local data):
/// envelopes a first relay holds until the closing time, when held ballots are released and when a
/// voter checks that its ballot was published, each relay sender's budget, and checked ballots by
/// message id.
final class SecretBallotDesk: Sendable {
    struct Forward: Sendable {
        let due: Duration
        /// The member that sent it here: it may keep only a few waiting at once.
        let sender: PeerID
        let publisher: PeerID
        let sealed: [UInt8]
    }

    struct CheckKey: Hashable, Sendable {
        let poll: MessageID
        let message: MessageID
    }

    struct State: Sendable {
        var forwards: [Forward] = []
        /// Polls whose held ballots this node publishes at the given wall time.
        var releases: [MessageID: (chat: ChatID, atMillis: Int64)] = [:]
        /// Polls on which this node cast a ballot and checks, at the given wall time, that it was published.
        var checks: [MessageID: (chat: ChatID, atMillis: Int64)] = [:]
        /// Closed polls whose reveals wait for the creator's messages the close covers to be stored:
        /// the next look, and when to give up.
        var reveals: [MessageID: (chat: ChatID, atMillis: Int64, untilMillis: Int64)] = [:]
        /// Envelopes each sender passed through this node within the current minute.
        var relayed: [PeerID: (minute: Int64, count: Int, toMe: Int)] = [:]
        /// Checked ballots by (poll, message): a message may reference several polls, and is a valid
        /// ballot on at most one of them.
        var checked: [CheckKey: CheckedBallot?] = [:]
        /// Times this node sent its ballot on a poll again.
        var retries: [MessageID: Int] = [:]
        /// The members this node's ballot on a poll went through (both paths), so a retry picks others.
        var relays: [MessageID: Set<PeerID>] = [:]
        /// Chats where this node's ballot key is known to be published.
        var keysPublished: Set<ChatID> = []
    }

    /// Envelopes one member may pass through this node per minute: a voter needs one per poll
    /// (a retry another), so this only stops a member from using relays to flood.
    static let relaysPerSenderPerMinute = 30
    /// Envelopes for this node itself one member may send per minute: a publisher hands the
    /// creator every ballot it holds (up to a whole electorate) at once, and again until published.
    static let envelopesToMePerSenderPerMinute = 4 * SecretPoll.maxElectorate
    /// Envelopes a first relay holds until their closing time, from everyone.
    static let maxWaitingForwards = 1_024
    /// Envelopes one member may have waiting at a first relay at once: a voter needs one per open
    /// secret poll (two paths use two relays), and an envelope may wait for weeks, so without this one
    /// member could fill the relay's whole queue and have every honest envelope refused.
    static let maxWaitingForwardsPerSender = 16
    static let maxCheckedBallots = 100_000
    /// The fewest ballots the creator's late batch (at the close) publishes: one ballot out after the
    /// batch would be linked to its voter by the member that passed it on late (BALLOTS.md §4).
    /// How long after the closing time a publisher still commits to ballots it hands over: half way
    /// to the creator's batch, well before any retry.
    static let commitWindow = Duration.seconds(5)
    /// How long a publisher waits for the creator's messages its close covers before giving up its reveals.
    static let revealWaitMillis: Int64 = 600_000
    /// A member that sends its own ballot late adds one at most (one per linking tag), so at
    /// `SecretPoll.minHidingElectors` it still cannot leave one other alone with its own.
    static let minLateBatch = SecretPoll.minHidingElectors

    let state = Mutex(State())

    /// Whether `sender` may pass another envelope now (a fixed window per minute); `toMe`: one this
    /// node opens itself, which has its own, larger budget and is never held.
    func admitRelay(from sender: PeerID, toMe: Bool, wallMillis: Int64) -> Bool {
        state.withLock { state in
            let minute = wallMillis / 60_000
            let current = state.relayed[sender].flatMap { $0.minute == minute ? $0 : nil }
            var entry: (minute: Int64, count: Int, toMe: Int) = current ?? (minute, 0, 0)
            if toMe {
                guard entry.toMe < Self.envelopesToMePerSenderPerMinute else { return false }
                entry.toMe += 1
                state.relayed[sender] = entry
                return true
            }
            guard entry.count < Self.relaysPerSenderPerMinute, state.forwards.count < Self.maxWaitingForwards,
                state.forwards.count(where: { $0.sender == sender }) < Self.maxWaitingForwardsPerSender
            else { return false }
            entry.count += 1
            if state.relayed.count > 4_096 { state.relayed = state.relayed.filter { $0.value.minute == minute } }
            state.relayed[sender] = entry
            return true
        }
    }

    func hasPublishedKey(in chat: ChatID) -> Bool { state.withLock { $0.keysPublished.contains(chat) } }
    func notePublishedKey(in chat: ChatID) { state.withLock { _ = $0.keysPublished.insert(chat) } }

    func noteRelays(_ relays: Set<PeerID>, for poll: MessageID) {
        state.withLock { $0.relays[poll, default: []].formUnion(relays) }
    }
    func relaysUsed(for poll: MessageID) -> Set<PeerID> { state.withLock { $0.relays[poll] ?? [] } }

    func schedule(_ forward: Forward) { state.withLock { $0.forwards.append(forward) } }

    /// Whether any envelope, release or check waits for its time.
    /// Reveals that wait are not counted: they look again only every sync interval.
    var hasTimers: Bool { state.withLock { !$0.forwards.isEmpty || !$0.releases.isEmpty || !$0.checks.isEmpty } }

    /// Looks again at `poll`'s reveals at `atMillis`, keeping the first wait's limit.
    func scheduleReveal(poll: MessageID, chat: ChatID, atMillis: Int64, untilMillis: Int64) {
        state.withLock { state in
            let until = state.reveals[poll]?.untilMillis ?? untilMillis
            state.reveals[poll] = (chat, atMillis, until)
        }
    }

    /// The polls whose reveals are due for a look, taken, with the time each may wait until.
    func takeDueReveals(atMillis now: Int64) -> [(poll: MessageID, chat: ChatID, untilMillis: Int64)] {
        state.withLock { state in
            let due = state.reveals.filter { $0.value.atMillis <= now }
            for poll in due.keys { state.reveals[poll] = nil }
            return due.map { (poll: $0.key, chat: $0.value.chat, untilMillis: $0.value.untilMillis) }
        }
    }

    func takeDueForwards(now: Duration) -> [Forward] {
        state.withLock { state in
            let due = state.forwards.filter { $0.due <= now }
            state.forwards.removeAll { $0.due <= now }
            return due
        }
    }

    func scheduleRelease(poll: MessageID, chat: ChatID, atMillis: Int64) {
        state.withLock { $0.releases[poll] = (chat, atMillis) }
    }

    func scheduleCheck(poll: MessageID, chat: ChatID, atMillis: Int64) {
        state.withLock { $0.checks[poll] = (chat, atMillis) }
    }

    func takeDue(atMillis now: Int64) -> (releases: [(MessageID, ChatID)], checks: [(MessageID, ChatID)]) {
        state.withLock { state in
            let releases = state.releases.filter { $0.value.atMillis <= now }
            let checks = state.checks.filter { $0.value.atMillis <= now }
            for poll in releases.keys { state.releases[poll] = nil }
            for poll in checks.keys { state.checks[poll] = nil }
            return (releases.map { ($0.key, $0.value.chat) }, checks.map { ($0.key, $0.value.chat) })
        }
    }

    /// `SecretPollRules.check` of `message` on `poll`, once. A reveal is checked once per content: its
    /// validity is its ballot's, and a member sending the same reveal again in new messages must not
    /// cost a ring check each time (the tally only checks reveals that reference the poll).
    func checked(_ message: Message, on poll: MessageID, compute: (Message) -> CheckedBallot?) -> CheckedBallot? {
        let key = Self.key(message, on: poll)
        if let known = state.withLock({ $0.checked[key] }) { return known }
        let result = compute(message)
        remember([(key, result)])
        return result
    }

    /// Checks, on every core, those of `messages` not checked yet: the ring checks of a secret poll's
    /// published batch (200 electors: 200 checks of 800 scalar multiplications each) before the count
    /// reads them one by one through `checked`.
    func checkAll(_ messages: [Message], on poll: MessageID, compute: @Sendable (Message) -> CheckedBallot?) {
        let unchecked = state.withLock { state in messages.filter { state.checked[Self.key($0, on: poll)] == nil } }
        let workers = min(ProcessInfo.processInfo.activeProcessorCount, unchecked.count)
        guard workers > 1 else { return }
        let results = Mutex<[(CheckKey, CheckedBallot?)]>([])
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            let mine = stride(from: worker, to: unchecked.count, by: workers).map {
                (Self.key(unchecked[$0], on: poll), compute(unchecked[$0]))
            }
            results.withLock { $0 += mine }
        }
        remember(results.withLock { $0 })
    }

    private func remember(_ results: [(CheckKey, CheckedBallot?)]) {
        state.withLock { state in
            if state.checked.count + results.count > Self.maxCheckedBallots { state.checked.removeAll() }
            for (key, result) in results { state.checked[key] = result }
        }
    }

    private static func key(_ message: Message, on poll: MessageID) -> CheckKey {
        CheckKey(
            poll: poll,
            message: message.tag == .pollBallotReveal
                ? Digest32(bytes: Bytes32(BLAKE2b.hash256(message.content))) : message.id)
    }

    /// Counts one more retry of this node's ballot on `poll`; false once `limit` were made.
    func takeRetry(for poll: MessageID, limit: Int) -> Bool {
        state.withLock { state in
            guard state.retries[poll, default: 0] < limit else { return false }
            state.retries[poll, default: 0] += 1
            return true
        }
    }
}
