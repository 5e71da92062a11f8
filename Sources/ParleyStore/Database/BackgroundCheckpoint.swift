internal import GRDB
internal import Synchronization

/// Checkpoints a file store's WAL on a connection of its own, beside the writer. SQLite's automatic
/// checkpoint runs on the connection that commits, after the commit: the writer then copies the WAL's
/// pages into the database file and waits for its sync, and every write queued behind it waits too
/// (2 nodes on one disk, `parley-bench profile throughput2`, 2026-12-03: 6,200–8,000 msg/s with it,
/// 8,900–9,600 with no checkpoint at all, 8,600–10,100 with this). A passive checkpoint takes no lock
/// the writer or readers need. It copies the frames there were when it began; while the writer keeps
/// committing, a pass leaves a tail behind, so passes follow one another until one finds nothing left
/// (the writer then starts the WAL over at its next commit), at most `passes`. The writer's own
/// automatic checkpoint stays as a backstop, at `writerBackstopPages` (256 MiB of WAL), for when these
/// fall behind.
final class BackgroundCheckpoint: Sendable {
    /// Rows changed on the writer since the last checkpoint that start another: each message stored
    /// changes a few rows and touches a few pages, so this is a few thousand messages.
    static let everyChangedRows: Int32 = 8_192
    static let writerBackstopPages = 65_536
    static let passes = 8

    private let connection: DatabaseQueue
    private struct State {
        /// SQLite's count of changed rows is a C int: it wraps, so differences are taken modulo 2^32.
        var changesAtLast: Int32 = 0
        var running = false
    }

    private let state = Mutex(State())

    init(path: String) throws {
        var configuration = Configuration()
        // As the store's own connections, for opening beside another process; a passive
        // checkpoint itself never waits for a lock.
        configuration.busyMode = .timeout(5)
        configuration.label = "ParleyStore.checkpoint"
        connection = try DatabaseQueue(path: path, configuration: configuration)
    }

    /// After a commit on the writer, whose connection has changed `totalChanges` rows so far: starts a
    /// checkpoint once enough were changed since the last one, unless one is running.
    func committed(totalChanges: Int) {
        let changes = Int32(truncatingIfNeeded: totalChanges)
        let due = state.withLock { state in
            guard !state.running, changes &- state.changesAtLast >= Self.everyChangedRows else { return false }
            state.running = true
            state.changesAtLast = changes
            return true
        }
        guard due else { return }
        connection.asyncWriteWithoutTransaction { db in
            // A busy or failed pass leaves the frames in the WAL, where the next one (or the writer's
            // backstop) finds them: nothing is lost either way.
            for _ in 0..<Self.passes {
                guard let (frames, copied) = try? db.checkpoint(.passive), copied < frames else { break }
            }
            self.state.withLock { $0.running = false }
        }
    }
}
