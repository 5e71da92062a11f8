internal import GRDB
internal import Synchronization
import ParleyCore

/// The ids of the messages this store took in last, to tell a copy that comes again without a read.
/// Under load a member's acks come back late, so its author's retransmits and other members' sync
/// replies bring the same message several times; each copy of a head found only by a store read, or
/// after a signature check, cost as much as storing it. Messages are never deleted, so an id once
/// here stays true; ids enter only when their transaction commits (a rolled-back one adds nothing),
/// and the oldest leave first.
///
/// A commit only hands its batch over (`committed`): adding id by id on the writer's thread took 7 %
/// of its time in a catch-up, where the writer is what everything waits for. The next question adds
/// the batches to the ring, on the asking thread, holding the ring's lock; the writer takes only the
/// batches' lock, for an append, so it never waits for that work.
final class RecentlyStored: Sendable {
    /// A few seconds of a busy node's arrivals, about 400 KiB.
    static let capacity = 4_096

    /// Committed batches not yet in the ring, oldest first.
    private struct Committed {
        var batches: [[MessageID]] = []
        var count = 0

        /// A stored id is new (messages are stored once), so the newest `capacity` committed ids are
        /// all that adding them would keep: older batches are let go unread.
        mutating func append(_ ids: [MessageID]) {
            batches.append(ids)
            count += ids.count
            var unneeded = 0
            while unneeded + 1 < batches.count, count - batches[unneeded].count >= RecentlyStored.capacity {
                count -= batches[unneeded].count
                unneeded += 1
            }
            batches.removeFirst(unneeded)
        }
    }

    private let ring = Mutex(RecentSet<MessageID>(capacity: capacity))
    private let committed = Mutex(Committed())

    /// Those of `ids` known to be stored.
    func contained(in ids: some Sequence<MessageID>) -> Set<MessageID> {
        ring.withLock { ring in
            let taken = committed.withLock { committed in
                defer { committed = Committed() }
                return committed
            }
            // Batches that alone fill the ring leave none of its ids: it starts again from them.
            if taken.count >= Self.capacity { ring = RecentSet(capacity: Self.capacity) }
            for batch in taken.batches { for id in batch { ring.insert(id) } }
            return Set(ids.filter { ring.contains($0) })
        }
    }

    /// Adds `ids` when the current transaction commits.
    func add(_ ids: [MessageID], in db: Database) {
        guard !ids.isEmpty else { return }
        db.afterNextTransaction { _ in
            self.committed.withLock { $0.append(ids) }
        }
    }
}
