internal import Foundation
internal import GRDB
internal import GRDBSQLite
import ParleyCrypto

/// Runs a prepared statement with its arguments bound straight through SQLite, for the statements
/// that run once per stored message or ack. GRDB's `execute(arguments:)` boxes every value as a
/// `DatabaseValue` in a `StatementArguments` array and copies each blob into a `Data` first: on the
/// insert path that was a third of the samples outside `sqlite3_step` itself, a fifth after this
/// (catch-up profiles, 2026-11-27). The statement still runs through GRDB's `execute()`, so its transaction observers
/// (live queries, commit hooks) see it as any other: GRDB is told the statement has no arguments,
/// so it keeps the bindings made here, and a later `execute(arguments:)` of the same statement binds
/// its own again.
struct DirectBindings {
    private let statement: Statement
    private var handle: SQLiteStatement { statement.sqliteStatement }
    private var index: Int32 = 1
    /// The first bind that failed: its code and parameter index.
    private var failure: (code: Int32, index: Int32)?

    /// Binds with `bind`, in parameter order, then executes `statement` to completion.
    static func execute(_ statement: Statement, _ bind: (inout DirectBindings) -> Void) throws {
        // A reset returns the error of the statement's last run, if it failed; GRDB's own reset in
        // `setUncheckedArguments` would trap on it, so it is taken here and left to `execute()` to report.
        sqlite3_reset(statement.sqliteStatement)
        // No GRDB arguments, marked as bound: `execute()` then only resets, which keeps the bindings below.
        statement.setUncheckedArguments(StatementArguments())
        var bindings = DirectBindings(statement: statement)
        bind(&bindings)
        try bindings.check(count: sqlite3_bind_parameter_count(statement.sqliteStatement))
        try statement.execute()
    }

    mutating func blob(_ bytes: some ContiguousBytes) {
        advance(bytes.withUnsafeBytes(bindBlob))
    }

    /// An id or a key, from its inline storage.
    mutating func blob(_ bytes: Bytes32) {
        advance(bytes.withUnsafeBytes(bindBlob))
    }

    private func bindBlob(_ raw: UnsafeRawBufferPointer) -> Int32 {
        // An empty buffer may have no address, which SQLite would bind as NULL.
        guard let base = raw.baseAddress, !raw.isEmpty else { return sqlite3_bind_zeroblob(handle, index, 0) }
        guard let count = Int32(exactly: raw.count) else { return SQLITE_TOOBIG }
        return sqlite3_bind_blob(handle, index, base, count, Self.transient)
    }

    mutating func integer(_ value: Int64) {
        advance(sqlite3_bind_int64(handle, index, value))
    }

    /// An integer, or SQL NULL for nil.
    mutating func integer(_ value: Int64?) {
        advance(value.map { sqlite3_bind_int64(handle, index, $0) } ?? sqlite3_bind_null(handle, index))
    }

    /// Binds all of its UTF-8 bytes (a length of -1 would stop at a NUL).
    mutating func text(_ value: String) {
        var value = value
        let code = value.withUTF8 { utf8 -> Int32 in
            guard let base = utf8.baseAddress, !utf8.isEmpty else {
                return sqlite3_bind_text(handle, index, "", 0, Self.transient)
            }
            guard let count = Int32(exactly: utf8.count) else { return SQLITE_TOOBIG }
            return sqlite3_bind_text(
                handle, index, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), count, Self.transient)
        }
        advance(code)
    }

    private mutating func advance(_ code: Int32) {
        if code != SQLITE_OK, failure == nil { failure = (code, index) }
        index += 1
    }

    /// Throws if a bind failed or the statement takes another number of arguments than were bound.
    private func check(count: Int32) throws {
        if let failure {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: failure.code), message: "could not bind argument \(failure.index)",
                sql: statement.sql)
        }
        guard index - 1 == count else {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE, message: "\(index - 1) arguments bound, \(count) expected",
                sql: statement.sql)
        }
    }

    /// SQLite copies the bytes before the bind returns (`SQLITE_TRANSIENT`).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
