import Logging
import Synchronization
import ParleyCore
import ParleyStore

/// The closing times of this node's own open polls. When one passes, the creator's node posts the
/// close itself: until a close arrives the poll is only "closing", because timestamps are claims
/// and only the creator's close says which ballots are in.
final class PollDeadlines: Sendable {
    struct Deadline: Sendable {
        let chat: ChatID
        var atMillis: Int64
    }

    private let pending = Mutex<[MessageID: Deadline]>([:])

    var isEmpty: Bool { pending.withLock { $0.isEmpty } }

    func add(poll: MessageID, chat: ChatID, atMillis: Int64) {
        pending.withLock { $0[poll] = Deadline(chat: chat, atMillis: atMillis) }
    }

    /// Takes the polls whose time has come.
    func takeDue(atMillis now: Int64) -> [(poll: MessageID, chat: ChatID)] {
        pending.withLock { pending in
            let due = pending.filter { $0.value.atMillis <= now }
            for poll in due.keys { pending[poll] = nil }
            return due.map { (poll: $0.key, chat: $0.value.chat) }
        }
    }
}

extension Node {
    /// Finds this node's own polls with a closing time and no close yet (once, at start).
    func loadPollDeadlines() async throws {
        for chat in try store.chats() {
            for stored in try store.messages(matching: MessageCriteria(chat: chat.invite.id, tag: .poll)) {
                let poll = try? Poll(stored.message)
                if let secret = poll?.secret {
                    try await loadSecretBallots(stored, secret)
                    continue
                }
                guard stored.message.author == me, let closesAt = poll?.spec?.closesAtMillis,
                    try !isClosed(stored.message)
                else { continue }
                pollDeadlines.add(poll: stored.id, chat: chat.invite.id, atMillis: closesAt)
            }
        }
    }

    /// Closes the own polls whose closing time has passed. A close that fails is tried again a sync
    /// interval later; one the user already sent (or a poll that is gone) needs nothing more.
    func closeDuePolls() async {
        let now = clock.wallMillis
        for (poll, chat) in pollDeadlines.takeDue(atMillis: now) {
            do {
                guard let stored = try store.message(poll), try !isClosed(stored.message) else { continue }
                // A creator that left (or was removed) can no longer close: trying again would last for good.
                guard try store.members(of: chat)?.contains(me) == true else {
                    logger.info(
                        "gave up closing a poll: this node is no longer a member of its chat",
                        metadata: ["poll": "\(poll.shortHex)"])
                    continue
                }
                // A secret poll's late ballots go out (with others, or not at all) before the close covers them.
                if try !heldBallots(of: poll).isEmpty { try await publishBatch(of: stored.message, late: true) }
                _ = try await closePoll(chat: chat, poll: poll)
                logger.info("closed a poll at its closing time", metadata: ["poll": "\(poll.shortHex)"])
            } catch {
                logger.warning("closing a poll at its closing time failed; retrying", metadata: ["error": "\(error)"])
                pollDeadlines.add(poll: poll, chat: chat, atMillis: now.adding(configuration.syncInterval))
            }
        }
    }
}
