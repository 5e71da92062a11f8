import Foundation
import GRDB
@testable import ParleyStore
import Testing

/// A file store's WAL is checkpointed on a connection of its own, beside the writer
/// (`BackgroundCheckpoint`): the writer's own automatic checkpoint would not have run yet.
struct BackgroundCheckpointTests {
    @Test func enoughChangedRowsHaveTheirPagesCopiedIntoTheDatabaseFileBesideTheWriter() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("store.sqlite")
        var configuration = Configuration()
        // Only the background checkpoint may copy pages: the writer's own is off.
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
        let pool = try DatabasePool(path: path, configuration: configuration)
        try await pool.write { db in try db.execute(sql: "CREATE TABLE rows (id INTEGER PRIMARY KEY, bytes BLOB)") }
        let checkpoint = try BackgroundCheckpoint(path: path)
        let before = try fileSize(path)

        // When fewer rows than a checkpoint needs change, nothing is copied; then enough do
        let few = try await insert(Int(BackgroundCheckpoint.everyChangedRows) / 2, into: pool)
        checkpoint.committed(totalChanges: few)
        try await Task.sleep(for: .milliseconds(200))
        #expect(try fileSize(path) == before)
        let enough = try await insert(Int(BackgroundCheckpoint.everyChangedRows), into: pool)
        checkpoint.committed(totalChanges: enough)

        // Then the pages reach the database file, and the WAL holds nothing more to copy
        var copied = false
        for _ in 0..<100 where !copied {
            try await Task.sleep(for: .milliseconds(50))
            copied = try fileSize(path) > before + 1_000_000
        }
        #expect(copied)
    }

    @Test func aFileStoresWritesAreCheckpointedBesideItsWriter() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("parley.sqlite")
        let store = try MessageStore.open(path: path)
        let before = try fileSize(path)
        // When more rows change through the store's writes than a checkpoint needs, far fewer pages
        // than the writer's own backstop
        let rows = Int(BackgroundCheckpoint.everyChangedRows) + 100
        try await store.write("scratch rows") { db in
            try db.execute(sql: "CREATE TABLE scratch (id INTEGER PRIMARY KEY, bytes BLOB)")
            for _ in 0..<rows {
                try db.execute(sql: "INSERT INTO scratch (bytes) VALUES (?)", arguments: [Data(count: 200)])
            }
        }
        // Then their pages reach the database file
        var copied = false
        for _ in 0..<100 where !copied {
            try await Task.sleep(for: .milliseconds(50))
            copied = try fileSize(path) > before + 1_000_000
        }
        #expect(copied)
    }

    /// Inserts `count` rows of 200 bytes in one transaction; the writer connection's total changes after it.
    private func insert(_ count: Int, into pool: DatabasePool) async throws -> Int {
        try await pool.write { db in
            for _ in 0..<count {
                try db.execute(sql: "INSERT INTO rows (bytes) VALUES (?)", arguments: [Data(count: 200)])
            }
            return db.totalChangesCount
        }
    }

    private func fileSize(_ path: String) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
    }
}
