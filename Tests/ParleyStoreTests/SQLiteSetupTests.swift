import GRDBSQLite
import ParleyCrypto
@testable import ParleyStore
import Testing

/// The process-wide SQLite settings the store makes before its first connection (`SQLiteSetup`).
struct SQLiteSetupTests {
    @Test func sqliteCountsNoMemoryOnceAStoreHasOpened() async throws {
        // Given an open store that has written a chat (so SQLite holds pages and statements)
        let fixture = try await StoreFixture.make()
        _ = try await fixture.store.insert(
            [fixture.message(by: fixture.bob, seq: 1)], receivedAtMillis: 0, ownAuthor: fixture.alice.publicKey)

        // Then SQLite took no statistics, so none of its allocations took the process-wide mutex.
        // Only a store opens databases in this test process (all test targets share it; none opens
        // GRDB or SQLite directly), so the setting came before SQLite started.
        #expect(SQLiteSetup.memoryStatisticsOff)
        #expect(sqlite3_memory_used() == 0)
    }
}
