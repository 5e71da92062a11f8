internal import GRDB
internal import Synchronization

/// Checkpoints a file store's WAL on a connection of its own, beside the writer. SQLite's automatic
/// checkpoint runs on the connection that commits, after the commit: the writer then copies the WAL's
/// pages into the database file and waits for its sync, and every write queued behind it waits too
/// (2 nodes on one disk, `parley-bench profile throughput2`, 2026-12-03: 6,200–7,000 msg/s with it, 8,900–9,600
/// with no checkpoint at all). A passive checkpoint here takes no lock the writer or readers need; the
/// writer then starts the WAL over once every frame is in the database file. The writer's own
/// automatic checkpoint stays as a backstop, at `writerBackstopPages`, in case these fall behind.
final class BackgroundCheckpoint: Sendable {
    /// Rows changed on the writer since the last checkpoint that start another: about the 32 MiB of
    /// WAL the writer's own checkpoint used to wait for (a message touches a few pages).
    static let everyChangedRows = 8_192
    static let writerBackstopPages = 65_536

    private let connection: DatabaseQueue
    private struct State {
        var changesAtLast = 0
        var running = false
    }

    private let state = Mutex(State())

    init(path: String) throws {
        var configuration = Configuration()
        // It only checkpoints: a lock another checkpoint holds makes it skip this one, never wait.
        configuration.busyMode = .immediateError
        configuration.label = "ParleyStore.checkpoint"
        connection = try DatabaseQueue(path: path, configuration: configuration)
    }

    /// After a commit on the writer, whose connection has changed `totalChanges` rows so far: starts a
    /// checkpoint once enough were changed since the last one, unless one is running.
    func committed(totalChanges: Int) {
        let due = state.withLock { state in
            guard !state.running, totalChanges - state.changesAtLast >= Self.everyChangedRows else { return false }
            state.running = true
            state.changesAtLast = totalChanges
            return true
        }
        guard due else { return }
        connection.asyncWriteWithoutTransaction { db in
            // A busy or failed checkpoint leaves the frames in the WAL, where the next one (or the
            // writer's backstop) finds them: nothing is lost either way.
            _ = try? db.checkpoint(.passive)
            self.state.withLock { $0.running = false }
        }
    }
}
