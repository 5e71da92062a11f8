import ParleyCore
import ParleyCrypto
@testable import ParleyStore
import Testing

/// The ids of the messages stored last answer "is it stored?" without a read: only ids a committed
/// insert stored, and only the newest `RecentlyStored.capacity` of them.
@Suite struct RecentlyStoredTests {
    @Test func aCommittedInsertIsKnownFromMemoryAndOthersAreReadFromTheStore() async throws {
        // Given Bob's message 1 stored, and his message 2 not
        let f = try await StoreFixture.make()
        let (stored, unknown) = (try f.message(by: f.bob, seq: 1), try f.message(by: f.bob, seq: 2))
        try await f.insert(stored)

        // Then memory knows the stored one only, and the store's answer agrees
        #expect(f.store.recentlyStored.contained(in: [stored.id, unknown.id]) == [stored.id])
        #expect(try f.store.storedIDs(among: [stored, unknown]) == [stored.id])
    }

    @Test func whatARolledBackTransactionStoredIsNotRemembered() async throws {
        let f = try await StoreFixture.make()
        let id = try f.message(by: f.bob, seq: 1).id
        await #expect(throws: StoreError.self) {
            try await f.store.write("a write that fails after storing") { db in
                f.store.recentlyStored.add([id], in: db)
                throw CancellationError()
            }
        }
        #expect(f.store.recentlyStored.contained(in: [id]).isEmpty)
    }

    @Test func theOldestLeaveFirstAndTheStoreStillAnswersForThem() async throws {
        // Given one more message than memory keeps, stored in order
        let f = try await StoreFixture.make()
        let messages = try (1...(RecentlyStored.capacity + 1)).map { try f.message(by: f.bob, seq: UInt64($0)) }
        _ = try await f.store.insert(messages, receivedAtMillis: 1, ownAuthor: f.alice.publicKey)

        // Then the first is no longer in memory, the last is, and both are stored
        #expect(f.store.recentlyStored.contained(in: [messages[0].id, messages.last!.id]) == [messages.last!.id])
        #expect(try f.store.storedIDs(among: [messages[0], messages.last!]) == [messages[0].id, messages.last!.id])
    }

    @Test func batchesCommittedWithoutAQuestionInBetweenAreAllKnownTheNewestKept() async throws {
        // Given more messages than memory keeps, stored in several transactions and never asked about
        let f = try await StoreFixture.make()
        let count = RecentlyStored.capacity + 1_500
        let messages = try (1...count).map { try f.message(by: f.bob, seq: UInt64($0)) }
        for first in stride(from: 0, to: count, by: 1_000) {
            _ = try await f.store.insert(
                Array(messages[first..<min(first + 1_000, count)]), receivedAtMillis: 1, ownAuthor: f.alice.publicKey)
        }

        // Then memory answers for the newest `capacity`, in the order they were stored, and not the oldest
        let newest = messages.suffix(RecentlyStored.capacity).map(\.id)
        #expect(f.store.recentlyStored.contained(in: newest) == Set(newest))
        #expect(f.store.recentlyStored.contained(in: messages.prefix(1_500).map(\.id)).isEmpty)
    }

    @Test func aSmallCommitAfterAQuestionKeepsWhatTheRingHeld() async throws {
        // Given ten messages stored and asked about, then one more stored
        let f = try await StoreFixture.make()
        let messages = try (1...11).map { try f.message(by: f.bob, seq: UInt64($0)) }
        _ = try await f.store.insert(Array(messages.prefix(10)), receivedAtMillis: 1, ownAuthor: f.alice.publicKey)
        #expect(f.store.recentlyStored.contained(in: messages.prefix(10).map(\.id)).count == 10)
        _ = try await f.store.insert([messages[10]], receivedAtMillis: 1, ownAuthor: f.alice.publicKey)

        // Then memory knows all eleven
        #expect(f.store.recentlyStored.contained(in: messages.map(\.id)) == Set(messages.map(\.id)))
    }

    @Test func commitsThatExactlyFillTheRingReplaceIt() async throws {
        // Given three messages stored and asked about, then two commits of half a ring each, unasked
        let f = try await StoreFixture.make()
        let half = RecentlyStored.capacity / 2
        let messages = try (1...(3 + 2 * half)).map { try f.message(by: f.bob, seq: UInt64($0)) }
        _ = try await f.store.insert(Array(messages.prefix(3)), receivedAtMillis: 1, ownAuthor: f.alice.publicKey)
        #expect(f.store.recentlyStored.contained(in: messages.prefix(3).map(\.id)).count == 3)
        _ = try await f.store.insert(Array(messages[3..<(3 + half)]), receivedAtMillis: 1, ownAuthor: f.alice.publicKey)
        _ = try await f.store.insert(Array(messages[(3 + half)...]), receivedAtMillis: 1, ownAuthor: f.alice.publicKey)

        // Then memory knows exactly the two commits' ids, as a ring of `capacity` would
        let newest = messages.dropFirst(3).map(\.id)
        #expect(f.store.recentlyStored.contained(in: newest) == Set(newest))
        #expect(f.store.recentlyStored.contained(in: messages.prefix(3).map(\.id)).isEmpty)
    }

    @Test func oneIdPastTheRingDropsOnlyTheOldest() async throws {
        // Given commits of half a ring, half a ring and one, unasked
        let f = try await StoreFixture.make()
        let half = RecentlyStored.capacity / 2
        let messages = try (1...(2 * half + 1)).map { try f.message(by: f.bob, seq: UInt64($0)) }
        for range in [0..<half, half..<(2 * half), (2 * half)..<(2 * half + 1)] {
            _ = try await f.store.insert(Array(messages[range]), receivedAtMillis: 1, ownAuthor: f.alice.publicKey)
        }

        // Then the first id alone is forgotten
        #expect(f.store.recentlyStored.contained(in: messages.map(\.id)) == Set(messages.dropFirst().map(\.id)))
    }
}
