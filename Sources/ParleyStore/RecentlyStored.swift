internal import GRDB
internal import Synchronization
import ParleyCore

/// The ids of the messages this store took in last, to tell a copy that comes again without a read.
/// Under load a member's acks come back late, so its author's retransmits and other members' sync
/// replies bring the same message several times; each copy of a head found only by a store read, or
/// after a signature check, cost as much as storing it. Messages are never deleted, so an id once
/// here stays true; ids enter only when their transaction commits (a rolled-back one adds nothing),
/// and the oldest leave first.
final class RecentlyStored: Sendable {
    /// A few seconds of a busy node's arrivals, about 400 KiB.
    static let capacity = 4_096

    private let ring = Mutex(RecentSet<MessageID>(capacity: capacity))

    /// Those of `ids` known to be stored.
    func contained(in ids: some Sequence<MessageID>) -> Set<MessageID> {
        ring.withLock { ring in Set(ids.filter { ring.contains($0) }) }
    }

    /// Adds `ids` when the current transaction commits.
    func add(_ ids: [MessageID], in db: Database) {
        guard !ids.isEmpty else { return }
        db.afterNextTransaction { _ in
            self.ring.withLock { ring in for id in ids { ring.insert(id) } }
        }
    }
}
