import Foundation
import GRDB
import ParleyCore
import ParleyCrypto
import ParleyStore

/// SQLite through GRDB with the store's own schema and indexes, but none of Parley's logic: rows
/// inserted per second (1,000 per transaction, prepared statement) and one indexed lookup by id;
/// beside it, the same rows into a bare table with no index, the floor any schema stands on.
struct SQLiteLimits: Sendable {
    let rowsPerSecond: Double
    let bareRowsPerSecond: Double
    let lookupMicroseconds: Double
    static let rowsPerTransaction = 1_000

    static func measure(_ scale: Scale, directory: String) async throws -> SQLiteLimits {
        let path = "\(directory)/sqlite-limits.sqlite"
        // The store creates the schema; the chat row satisfies the messages' foreign key.
        let store = try MessageStore.open(path: path)
        let author = try Identity.generate()
        let invite = try ChatInvite.create(by: author, title: "limits", members: [], createdAtMillis: 0)
        _ = try await store.saveChat(invite, joinedAtMillis: 0)

        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        let pool = try DatabasePool(path: path, configuration: configuration)
        let ids = (0..<scale.sqliteRows).map { _ in Data(secureRandomBytes(count: 32)) }
        let chat = Data(invite.id.rawRepresentation)
        let authorBlob = Data(author.publicKey.rawRepresentation)
        let content = Data(repeating: 0x61, count: 64)
        let encoded = Data(repeating: 0x62, count: 228)

        let clock = ContinuousClock()
        let start = clock.now
        for first in stride(from: 0, to: ids.count, by: rowsPerTransaction) {
            try await pool.write { db in
                let statement = try db.cachedStatement(
                    sql: """
                        INSERT INTO messages (id, chat_id, author, seq, lamport, timestamp_ms, tag, content, encoded,
                                              local_number, received_at_ms, state)
                        VALUES (?, ?, ?, ?, ?, ?, 'Text', ?, ?, ?, ?, 'received')
                        """)
                for index in first..<min(first + rowsPerTransaction, ids.count) {
                    let n = Int64(index + 1)
                    try statement.execute(arguments: [ids[index], chat, authorBlob, n, n, n, content, encoded, n, n])
                }
            }
        }
        let insertSeconds = (clock.now - start).seconds

        try await pool.write { db in
            try db.execute(
                sql: "CREATE TABLE bare (id BLOB, chat_id BLOB, author BLOB, seq INTEGER, content BLOB, encoded BLOB)")
        }
        let bareStart = clock.now
        for first in stride(from: 0, to: ids.count, by: rowsPerTransaction) {
            try await pool.write { db in
                let statement = try db.cachedStatement(
                    sql: "INSERT INTO bare (id, chat_id, author, seq, content, encoded) VALUES (?, ?, ?, ?, ?, ?)")
                for index in first..<min(first + rowsPerTransaction, ids.count) {
                    try statement.execute(arguments: [ids[index], chat, authorBlob, Int64(index + 1), content, encoded])
                }
            }
        }
        let bareSeconds = (clock.now - bareStart).seconds

        var generator = SystemRandomNumberGenerator()
        let probes = (0..<scale.sqliteLookups).map { _ in ids[Int.random(in: 0..<ids.count, using: &generator)] }
        let lookupSeconds = try await pool.read { db in
            let statement = try db.cachedStatement(sql: "SELECT encoded FROM messages WHERE id = ?")
            let begin = ContinuousClock.now
            var found = 0
            for id in probes where try Data.fetchOne(statement, arguments: [id]) != nil { found += 1 }
            guard found == probes.count else { throw BenchError("indexed lookups found \(found) of \(probes.count)") }
            return (ContinuousClock.now - begin).seconds
        }
        return SQLiteLimits(
            rowsPerSecond: Double(ids.count) / insertSeconds, bareRowsPerSecond: Double(ids.count) / bareSeconds,
            lookupMicroseconds: lookupSeconds / Double(probes.count) * 1e6)
    }
}
