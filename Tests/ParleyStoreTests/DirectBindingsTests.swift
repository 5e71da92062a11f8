import Foundation
import GRDB
import ParleyCore
@testable import ParleyStore
import Testing

/// Binding the insert path's arguments straight through SQLite (`DirectBindings`).
struct DirectBindingsTests {
    @Test func bindsEachKindInOrderAndAnEmptyBlobAsEmptyNotNull() async throws {
        // Given a table whose blobs may not be NULL
        let store = try MessageStore.inMemory()
        let values = try await store.write("direct bindings") { db -> (Data, Data, Data, Int64, String)? in
            try db.execute(
                sql:
                    "CREATE TEMP TABLE t (full BLOB NOT NULL, empty BLOB NOT NULL, none BLOB NOT NULL, number INTEGER, word TEXT)"
            )
            // When a row is inserted with direct bindings, two of its blobs empty (bytes and data)
            try DirectBindings.execute(db.makeStatement(sql: "INSERT INTO t VALUES (?, ?, ?, ?, ?)")) { row in
                row.blob([1, 2, 3])
                row.blob([UInt8]())
                row.blob(Data())
                row.integer(-5)
                row.text("héllo")
            }
            return try Row.fetchOne(db, sql: "SELECT full, empty, none, number, word FROM t").map {
                ($0[0], $0[1], $0[2], $0[3], $0[4])
            }
        }
        // Then each value reads back as bound, and the empty blob is an empty blob
        let (full, empty, none, number, word) = try #require(values)
        #expect(full == Data([1, 2, 3]))
        #expect(empty == Data())
        #expect(none == Data())
        #expect(number == -5)
        #expect(word == "héllo")
    }

    @Test func refusesTooFewOrTooManyArguments() async throws {
        let store = try MessageStore.inMemory()
        for count in [1, 3] {
            await #expect(throws: StoreError.self) {
                try await store.write("direct bindings") { db in
                    try DirectBindings.execute(db.makeStatement(sql: "SELECT ?, ?")) { row in
                        for value in 0..<count { row.integer(Int64(value)) }
                    }
                }
            }
        }
    }

    @Test func aStatementAlsoRunWithGRDBArgumentsKeepsTheRightBindings() async throws {
        // Given one cached statement run by GRDB with its own arguments, then with direct bindings, then by GRDB again
        let store = try MessageStore.inMemory()
        let numbers = try await store.write("direct bindings") { db -> [Int64] in
            try db.execute(sql: "CREATE TEMP TABLE n (value INTEGER NOT NULL)")
            let insert = "INSERT INTO n VALUES (?)"
            try db.cachedStatement(sql: insert).execute(arguments: [1])
            try DirectBindings.execute(db.cachedStatement(sql: insert)) { $0.integer(2) }
            try db.cachedStatement(sql: insert).execute(arguments: [3])
            try DirectBindings.execute(db.cachedStatement(sql: insert)) { $0.integer(4) }
            return try Int64.fetchAll(db, sql: "SELECT value FROM n ORDER BY rowid")
        }
        // Then each run stored its own value
        #expect(numbers == [1, 2, 3, 4])
    }

    @Test func aMessageWithNoContentIsStoredAndReadBackWhole() async throws {
        // Given a message whose content is empty (its column may not be NULL)
        let f = try await StoreFixture.make()
        let empty = try f.message(by: f.bob, seq: 1, content: [])
        // When it is stored, then it reads back exactly
        try await f.insert(empty)
        #expect(try f.store.message(empty.id)?.message == empty)
    }
}
