internal import Foundation
internal import GRDB
internal import Synchronization
import ParleyCore

/// Own messages waiting for acknowledgements, as the delivery bookkeeping reads them: where each is
/// stored, its state and who acknowledged it so far. Every own message sent is acknowledged by every
/// other member; finding each one by its random 32-byte id in the index, and its deliveries beside it,
/// cost more than the rest of recording its acks. The insert that stores an own message knows all of
/// this, so it keeps it here; `recordDeliveries` reads the store only for what is not here (after a
/// restart, or past `capacity`).
///
/// The entries change only inside write transactions and take effect when the transaction commits
/// (a rolled-back one changes nothing), so they never say what the store does not. Messages are never
/// deleted, so a kept row id stays the message's. Shared by every copy of one store value.
final class AwaitingAcks: Sendable {
    struct Entry: Sendable {
        let rowID: Int64
        let author: PeerID
        let chatId: Data
        let localNumber: Int64
        var state: DeliveryState
        /// Members whose acks are recorded (rows in `deliveries`).
        var acknowledged: Set<PeerID>
    }

    /// Enough for the pushes a node has in flight to every member at once; beyond it the store is read.
    static let capacity = 65_536

    private let entries = Mutex([MessageID: Entry]())

    func lookup(_ ids: some Sequence<MessageID>) -> [MessageID: Entry] {
        entries.withLock { entries in
            var found: [MessageID: Entry] = [:]
            for id in ids { if let entry = entries[id] { found[id] = entry } }
            return found
        }
    }

    /// Applies `changes` (an entry, or nil once delivered) when the current transaction commits.
    func update(_ changes: [MessageID: Entry?], in db: Database) {
        guard !changes.isEmpty else { return }
        db.afterNextTransaction { _ in
            self.entries.withLock { entries in
                for (id, change) in changes {
                    if let change, change.state != .delivered {
                        if entries[id] != nil || entries.count < Self.capacity { entries[id] = change }
                    } else {
                        entries[id] = nil
                    }
                }
            }
        }
    }
}
