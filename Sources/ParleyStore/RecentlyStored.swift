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

        mutating func fold() {
            for batch in committed { for id in batch { ring.insert(id) } }
            committed.removeAll(keepingCapacity: true)
            committedCount = 0
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
            self.state.withLock { state in
                state.committed.append(ids)
                state.committedCount += ids.count
                // Unasked, the batches would pile up: past a ring's worth, they are added here.
                if state.committedCount > RecentlyStored.capacity { state.fold() }
            }
        }
    }
}
