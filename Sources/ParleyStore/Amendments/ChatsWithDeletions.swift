internal import GRDB
internal import Synchronization
import ParleyCore

/// Which chats hold a deletion for everyone. Every stored batch asks whether a deletion named one of
/// its messages before it arrived (`deletionTargets`); in a chat that never had one the answer is no
/// without a read, and that read (a transaction of its own after each commit) was about 2 % of a
/// 2-node bench profile. A chat's entry becomes true when a transaction storing a `Delete` in it
/// commits, and is never set back; a read learns false only where nothing is recorded yet, so a
/// deletion committed while the read ran is not forgotten. Shared by every copy of one store value:
/// like `AwaitingAcks`, it assumes no other writer of the file while a node runs.
final class ChatsWithDeletions: Sendable {
    private let known = Mutex([ChatID: Bool]())

    /// Whether `chat` holds a deletion, if a read or a commit has told.
    func holdsDeletion(_ chat: ChatID) -> Bool? {
        known.withLock { $0[chat] }
    }

    /// What a read of the store found.
    func learn(_ chat: ChatID, holdsDeletion: Bool) {
        known.withLock { known in
            if known[chat] == nil { known[chat] = holdsDeletion }
        }
    }

    /// Marks `chats` as holding a deletion once the current transaction commits.
    func add(_ chats: Set<ChatID>, in db: Database) {
        guard !chats.isEmpty else { return }
        db.afterNextTransaction { _ in
            self.known.withLock { known in for chat in chats { known[chat] = true } }
        }
    }
}
