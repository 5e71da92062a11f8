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

    private struct State {
        var ring = RecentSet<MessageID>(capacity: RecentlyStored.capacity)
        /// Committed batches not yet in `ring`, oldest first. The commit only hands its batch over:
        /// adding id by id on the writer's thread took 7 % of its time in a catch-up, where the writer
        /// is what everything waits for. The next question (on the receive path's thread) adds them.
        var committed: [[MessageID]] = []
        var committedCount = 0
        /// Whether the committed batches alone fill the ring, so that adding them leaves none of its ids.
        var ringOutdated = false

        /// A stored id is new (messages are stored once), so the newest `capacity` committed ids are all
        /// a fold would keep: older batches are let go unread, and so is the ring once they fill it.
        mutating func keep(_ ids: [MessageID]) {
            committed.append(ids)
            committedCount += ids.count
            var unneeded = 0
            while unneeded + 1 < committed.count, committedCount - committed[unneeded].count >= RecentlyStored.capacity {
                committedCount -= committed[unneeded].count
                unneeded += 1
            }
            committed.removeFirst(unneeded)
            if committedCount >= RecentlyStored.capacity { ringOutdated = true }
        }

        mutating func fold() {
            if ringOutdated { ring = RecentSet(capacity: RecentlyStored.capacity) }
            for batch in committed { for id in batch { ring.insert(id) } }
            committed.removeAll(keepingCapacity: true)
            (committedCount, ringOutdated) = (0, false)
        }
    }

    private let state = Mutex(State())

    /// Those of `ids` known to be stored.
    func contained(in ids: some Sequence<MessageID>) -> Set<MessageID> {
        state.withLock { state in
            state.fold()
            return Set(ids.filter { state.ring.contains($0) })
        }
    }

    /// Adds `ids` when the current transaction commits.
    func add(_ ids: [MessageID], in db: Database) {
        guard !ids.isEmpty else { return }
        db.afterNextTransaction { _ in
            self.state.withLock { state in state.keep(ids) }
        }
    }
}
