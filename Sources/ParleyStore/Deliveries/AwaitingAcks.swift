internal import Foundation
internal import GRDB
internal import Synchronization
import ParleyCore

/// Own messages waiting for acknowledgements, as the delivery bookkeeping reads them: its place in
/// its chat, its state and who acknowledged it so far. Every own message sent is acknowledged by every
/// other member; finding each one by its random 32-byte id in the index, and its deliveries beside it,
/// cost more than the rest of recording its acks. The insert that stores an own message knows all of
/// this, so it keeps it here; `recordDeliveries` reads the store only for what is not here (after a
/// restart, or past `capacity`).
///
/// The entries change only inside write transactions and take effect when the transaction commits
/// (a rolled-back one changes nothing), so they never say what the store does not; a place, once
/// given, is the message's for good. Shared by every copy of one store value: another `MessageStore`
/// opened on the same file and writing acks to it would leave this one's entries behind, as would any
/// other writer of the file while a node runs.
final class AwaitingAcks: Sendable {
    struct Entry: Sendable {
        let row: DeliveryRow
        /// Members whose acks are recorded (rows in `deliveries`).
        let acknowledged: Set<PeerID>
    }

    /// Enough for the pushes a node has in flight to every member at once. Messages a member never
    /// acknowledges (it left for good) would fill it: when it is full it starts again empty, and what
    /// it no longer holds is read from the store.
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
                    if let change, change.row.state != .delivered {
                        if entries[id] == nil, entries.count >= Self.capacity {
                            entries.removeAll(keepingCapacity: true)
                        }
                        entries[id] = change
                    } else {
                        entries[id] = nil
                    }
                }
            }
        }
    }
}
