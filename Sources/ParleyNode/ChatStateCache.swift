import ParleyCore
import ParleyStore
import Synchronization

/// Per-chat counters the send path needs on every message (next sequence, Lamport clock, the id of
/// this node's previous message, which the next one links to), loaded from the store once and then
/// kept in memory.
final class ChatStateCache: Sendable {
    private struct Counters {
        var nextSequence: UInt64
        var lamport: UInt64
        var previous: MessageID?
    }

    private let counters = Mutex<[ChatID: Counters]>([:])

    /// Reserves the next (sequence, lamport) pair for an own message in `chat`, with the id of the
    /// own message before it, which it must name as its `previous`. `link(chat:to:)` must follow
    /// with the new message's id before the next reservation in the chat.
    func reserve(chat: ChatID, author: PeerID, store: MessageStore) throws -> (
        sequence: UInt64, lamport: UInt64, previous: MessageID?
    ) {
        let loaded =
            try counters.withLock { $0[chat] }
            ?? {
                let next = try store.nextSequence(chat: chat, author: author)
                return Counters(
                    nextSequence: next, lamport: try store.chatClock(chat: chat),
                    previous: next > 1 ? try store.messageID(chat: chat, author: author, sequence: next - 1) : nil)
            }()
        return counters.withLock { all in
            var entry = all[chat] ?? loaded
            entry.lamport = ChatClock.next(after: entry.lamport)
            let reserved = (entry.nextSequence, entry.lamport, entry.previous)
            entry.nextSequence += 1
            entry.previous = nil
            all[chat] = entry
            return reserved
        }
    }

    /// Records the id of the own message just made in `chat`: the next one links to it. A reserved
    /// number whose message was never made leaves nothing to link to, so the next one links to nothing.
    func link(chat: ChatID, to id: MessageID) {
        counters.withLock { all in all[chat]?.previous = id }
    }

    /// Drops the chat's counters, so the next reservation reloads them from the store: after a batch
    /// that could not be stored, its numbers are free again.
    func forget(chat: ChatID) {
        _ = counters.withLock { $0.removeValue(forKey: chat) }
    }

    /// Lamport receive rule: our clock moves up to a stored message's clock, unless that one jumps
    /// implausibly far above it (`ChatClock.observing`): one member's claim cannot pin everyone's clock.
    func observe(chat: ChatID, lamport: UInt64) {
        counters.withLock { all in
            if var entry = all[chat] {
                entry.lamport = ChatClock.observing(lamport, at: entry.lamport)
                all[chat] = entry
            }
        }
    }
}
