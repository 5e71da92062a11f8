import ParleyCore
import ParleyStore
import Synchronization

/// Per-chat counters the send path needs on every message (next sequence, Lamport clock),
/// loaded from the store once and then kept in memory.
final class ChatStateCache: Sendable {
    private struct Counters {
        var nextSequence: UInt64
        var lamport: UInt64
    }

    private let counters = Mutex<[ChatID: Counters]>([:])
    /// The store keeps clocks as SQLite integers.
    static let maxLamport = UInt64(Int64.max)

    /// Reserves the next (sequence, lamport) pair for an own message in `chat`.
    func reserve(chat: ChatID, author: PeerID, store: MessageStore) throws -> (sequence: UInt64, lamport: UInt64) {
        let loaded = try counters.withLock { $0[chat] } ?? Counters(
            nextSequence: store.nextSequence(chat: chat, author: author), lamport: store.maxLamport(chat: chat))
        return counters.withLock { all in
            var entry = all[chat] ?? loaded
            // Saturates: a member that posts the largest clock must not stop everyone else sending.
            entry.lamport = min(entry.lamport, Self.maxLamport - 1) + 1
            let reserved = (entry.nextSequence, entry.lamport)
            entry.nextSequence += 1
            all[chat] = entry
            return reserved
        }
    }

    /// Drops the chat's counters, so the next reservation reloads them from the store: after a batch
    /// that could not be stored, its numbers are free again.
    func forget(chat: ChatID) {
        _ = counters.withLock { $0.removeValue(forKey: chat) }
    }

    /// Lamport receive rule: our clock moves past every clock we have seen.
    func observe(chat: ChatID, lamport: UInt64) {
        counters.withLock { all in
            if var entry = all[chat] {
                entry.lamport = max(entry.lamport, lamport)
                all[chat] = entry
            }
        }
    }
}
