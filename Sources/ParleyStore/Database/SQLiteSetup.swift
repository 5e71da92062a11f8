internal import CSQLiteConfig

/// Process-wide SQLite settings, made once before the store opens its first connection.
enum SQLiteSetup {
    /// Memory statistics off: SQLite then allocates without taking its process-wide mutex, which the
    /// writers and readers of every store in the process (two or more nodes in one test or bench
    /// process) otherwise all contend for. False if SQLite had already started, when another library
    /// in the process opened a database first: the statistics then stay on, which costs only speed.
    static let memoryStatisticsOff: Bool = parley_sqlite3_disable_memory_statistics() == SQLITE_OK
}
