internal import GRDB

/// Transactions begun and ended by statements prepared once per connection. GRDB's `read` and
/// `write` compile `BEGIN` and `COMMIT` anew for every transaction: in a one-message commit that was
/// about 30 µs of about 100 (measured with GRDB 7.10 on this schema), paid by the sender's and the
/// receiver's store on every message's way, and by every read. As GRDB's: an immediate transaction
/// for writes, a deferred one (a consistent snapshot) for reads, rolled back on any error so the
/// connection is never left inside a transaction. Unlike GRDB's: a read on an in-memory store
/// (`DatabaseQueue`) is not made `query_only`, and a body must not catch a database error and go on,
/// since SQLite may have rolled the transaction back itself; the COMMIT then finds none open and
/// throws rather than report success.
enum PreparedTransaction {
    enum Kind: String {
        case deferred = "BEGIN DEFERRED TRANSACTION"
        case immediate = "BEGIN IMMEDIATE TRANSACTION"
    }

    static func run<T>(_ kind: Kind, _ db: Database, _ body: (Database) throws -> T) throws -> T {
        try db.cachedStatement(sql: kind.rawValue).execute()
        do {
            let result = try body(db)
            guard db.isInsideTransaction else {
                throw DatabaseError(resultCode: .SQLITE_ABORT, message: "the transaction was rolled back")
            }
            try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
            return result
        } catch {
            // A failed COMMIT (or an error SQLite answered with its own rollback) may leave either state.
            try? db.rollback()
            throw error
        }
    }
}
