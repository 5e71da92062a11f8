internal import GRDB
internal import Synchronization

/// The node's durable memory: joined chats, every message it holds, sync heads, deliveries, contacts and
/// private local data. A `Sendable` value around one GRDB writer; each write method is one transaction
/// that keeps the invariants, so a burst of datagrams costs one commit.
public struct MessageStore: Sendable {
    private let writer: any DatabaseWriter
    /// The file path, or ":memory:", for error messages.
    let location: String
    let arrivalHub = ArrivalHub()
    let membershipCache = MembershipCache()
    let syncReads = SyncReadCache()
    let awaitingAcks = AwaitingAcks()
    let recentlyStored = RecentlyStored()
    let chatsWithDeletions = ChatsWithDeletions()
    let committedPositions = CommittedPositions()
    /// Writes handed to GRDB's writer queue and not finished: while there are any, a short write
    /// queues behind them instead of blocking its thread (see `writeNow`).
    let queuedWrites = QueuedWrites()
    /// A file store's checkpoints, off the writer's path; none in memory.
    private let checkpoint: BackgroundCheckpoint?

    /// Opens (creating if needed) the store at `path` in WAL mode.
    ///
    /// Throws, and leaves the file alone, if it is not SQLite or was written by a newer Parley.
    public static func open(path: String) throws(StoreError) -> MessageStore {
        var configuration = makeConfiguration()
        // With WAL, NORMAL survives a process crash (only a power loss can undo the last commits),
        // and a commit costs no fsync: "durable before acknowledged" means committed. Checkpoints
        // run beside the writer (`BackgroundCheckpoint`), every few thousand messages rather than
        // SQLite's 1,000 pages: the index pages every insert touches (a message id is a random hash)
        // go back once for many commits, and syncs are rarer (about 10 % more 2-node throughput in
        // back-to-back bench profiles, when the writer still ran them itself).
        configuration.prepareDatabase { db in
            // A WAL file grown past 32 MiB is cut back to it when the WAL starts over.
            try db.execute(
                sql:
                    "PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = \(BackgroundCheckpoint.writerBackstopPages); "
                    + "PRAGMA journal_size_limit = 33554432")
        }
        let pool: DatabasePool
        let checkpoint: BackgroundCheckpoint
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            checkpoint = try BackgroundCheckpoint(path: path)
        } catch {
            throw openingError(error, path: path)
        }
        return try MessageStore(writer: pool, location: path, checkpoint: checkpoint)
    }

    /// A private store that disappears with the value: for tests and throwaway nodes.
    public static func inMemory() throws(StoreError) -> MessageStore {
        let queue: DatabaseQueue
        do { queue = try DatabaseQueue(configuration: makeConfiguration()) } catch {
            throw openingError(error, path: ":memory:")
        }
        return try MessageStore(writer: queue, location: ":memory:", checkpoint: nil)
    }

    private init(writer: any DatabaseWriter, location: String, checkpoint: BackgroundCheckpoint?) throws(StoreError) {
        self.writer = writer
        self.location = location
        self.checkpoint = checkpoint
        let migrator = Self.migrator
        do {
            // Refuse a schema we do not know before touching it: a newer Parley may rely on tables
            // or invariants this one would break.
            let unknown = try writer.read { db in try migrator.appliedIdentifiers(db).subtracting(migrator.migrations) }
            guard unknown.isEmpty else { throw StoreError.newerSchema(path: location, migrations: Array(unknown)) }
            try migrator.migrate(writer)
        } catch {
            throw Self.openingError(error, path: location)
        }
    }

    private static func makeConfiguration() -> Configuration {
        _ = SQLiteSetup.memoryStatisticsOff
        var configuration = Configuration()
        // Another process (the CLI next to a running node) may hold the write lock for a moment.
        configuration.busyMode = .timeout(5)
        configuration.label = "ParleyStore"
        return configuration
    }

    private static func openingError(_ error: any Error, path: String) -> StoreError {
        if let error = error as? StoreError { return error.located(at: path) }
        if let error = error as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_NOTADB, .SQLITE_CORRUPT: return .notADatabase(path: path)
            default: return .cannotOpen(path: path, reason: error.message ?? error.description)
            }
        }
        return .cannotOpen(path: path, reason: String(describing: error))
    }

    // MARK: Access

    /// A read on a consistent snapshot, with GRDB errors turned into `StoreError`.
    func read<T>(_ context: @autoclosure () -> String, _ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try writer.unsafeRead { db in try PreparedTransaction.run(.deferred, db, body) }
        } catch { throw .database(context(), error) }
    }

    /// One write transaction: it commits as a whole or not at all. Unless it says it `keepsMemberships`
    /// (it writes no chat, member, epoch or key row), it empties the membership cache.
    func write<T: Sendable>(
        _ context: String, keepsMemberships: Bool = false, _ body: @escaping @Sendable (Database) throws -> T
    ) async throws(StoreError) -> T {
        if !keepsMemberships { membershipCache.changeBegins() }
        queuedWrites.count.add(1, ordering: .relaxed)
        defer {
            queuedWrites.count.subtract(1, ordering: .relaxed)
            if !keepsMemberships { membershipCache.changeEnds() }
            syncReads.writeEnded()
        }
        let checkpoint = self.checkpoint
        do {
            return try await writer.writeWithoutTransaction { db in
                defer { checkpoint?.committed(totalChanges: db.totalChangesCount) }
                return try PreparedTransaction.run(.immediate, db, body)
            }
        } catch { throw .database(context, error) }
    }

    /// A short write transaction run on the calling thread. Handing a one-message commit to the
    /// writer queue and back costs two thread wake-ups, more than the commit itself; the price is
    /// that the caller waits, without suspending, while another write holds the writer, so callers
    /// use it only when `queuedWrites` is idle.
    func writeNow<T>(
        _ context: @autoclosure () -> String, keepsMemberships: Bool = false, _ body: (Database) throws -> T
    ) throws(StoreError) -> T {
        if !keepsMemberships { membershipCache.changeBegins() }
        defer {
            if !keepsMemberships { membershipCache.changeEnds() }
            syncReads.writeEnded()
        }
        do {
            return try writer.writeWithoutTransaction { db in
                defer { checkpoint?.committed(totalChanges: db.totalChangesCount) }
                return try PreparedTransaction.run(.immediate, db, body)
            }
        } catch { throw .database(context(), error) }
    }

    /// The reader that observations run on.
    var observationReader: any DatabaseReader { writer }
}

/// Counts the writes running on GRDB's writer queue (`MessageStore.write`).
final class QueuedWrites: Sendable {
    let count = Atomic<Int>(0)

    var isIdle: Bool { count.load(ordering: .relaxed) == 0 }
}
