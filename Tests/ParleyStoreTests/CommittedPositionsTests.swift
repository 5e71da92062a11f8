import ParleyCore
import ParleyCrypto
@testable import ParleyStore
import Testing

/// Each chat's next local number and each author's head are kept in memory as last committed, so an
/// insert reads neither back from the store; what memory says always matches the file.
@Suite struct CommittedPositionsTests {
    @Test func insertsOneAtATimeNumberOnAndLeaveTheSameHeadsAsTheFile() async throws {
        // Given Bob's messages 1, 3 and 4 stored one per transaction (a gap at 2), then 2 filling it
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("store.sqlite")
        let f = try await StoreFixture.make(store: try MessageStore.open(path: path))
        var numbers: [Int64] = []
        for seq in [1, 3, 4, 2] as [UInt64] {
            numbers += try await f.stored(try f.message(by: f.bob, seq: seq)).map(\.localNumber)
        }

        // Then local numbers run on, and the head joined the run up to 4
        #expect(numbers == [1, 2, 3, 4])
        let key = AuthorLane(chat: f.chat, author: f.bob.publicKey)
        #expect(f.store.committedPositions.head(key).map { [$0.contiguous, $0.max] } == [4, 4])
        #expect(f.store.committedPositions.nextLocalNumber(of: f.chat) == 5)
        // and a store opened afresh on the file (nothing in memory) reads the same from it
        let reopened = try MessageStore.open(path: path)
        #expect(try reopened.contiguousSequences(chat: f.chat)[f.bob.publicKey] == 4)
        #expect(
            try await reopened.insert(
                [try f.message(by: f.bob, seq: 5)], receivedAtMillis: 1, ownAuthor: f.alice.publicKey
            )
            .first?.storedMessage?.localNumber == 5)
    }

    @Test func aForkAtOrBelowTheHeadIsLookedUpAndFoundNotStored() async throws {
        let f = try await StoreFixture.make()
        let stored = try (1...2).map { try f.message(by: f.bob, seq: UInt64($0)) }
        _ = try await f.store.insert(stored, receivedAtMillis: 1, ownAuthor: f.alice.publicKey)
        let fork = try f.message(by: f.bob, seq: 2, text: "another second message")
        #expect(try f.store.storedIDs(among: [fork, stored[1]]) == [stored[1].id])
    }

    @Test func aRolledBackTransactionLeavesThePositionsAsCommitted() async throws {
        let f = try await StoreFixture.make()
        try await f.insert(try f.message(by: f.bob, seq: 1))
        let key = AuthorLane(chat: f.chat, author: f.bob.publicKey)
        await #expect(throws: StoreError.self) {
            try await f.store.write("a write that fails after moving the positions") { db in
                f.store.committedPositions.update(
                    nextLocalNumbers: [f.chat: 99], heads: [key: CommittedPositions.Head(contiguous: 98, max: 98)],
                    in: db)
                throw CancellationError()
            }
        }
        #expect(f.store.committedPositions.nextLocalNumber(of: f.chat) == 2)
        #expect(f.store.committedPositions.head(key).map { [$0.contiguous, $0.max] } == [1, 1])
    }

    @Test func aMessageAtItsAuthorsHeadIsFoundByItsIDAndOneAboveIsNew() async throws {
        // Given Bob's messages 1 and 2, then enough of Carol's that Bob's leave the recently stored
        let f = try await StoreFixture.make()
        let bobs = try (1...2).map { try f.message(by: f.bob, seq: UInt64($0)) }
        _ = try await f.store.insert(bobs, receivedAtMillis: 1, ownAuthor: f.alice.publicKey)
        let carols = try (1...RecentlyStored.capacity).map { try f.message(by: f.carol, seq: UInt64($0)) }
        _ = try await f.store.insert(carols, receivedAtMillis: 1, ownAuthor: f.alice.publicKey)
        #expect(f.store.recentlyStored.contained(in: bobs.map(\.id)).isEmpty)

        // Then Bob's message at his head is still known stored, and his next one is not
        let next = try f.message(by: f.bob, seq: 3)
        #expect(try f.store.storedIDs(among: [bobs[1], next]) == [bobs[1].id])
    }

    @Test func anInsertThatFailsOnANumberTakenBehindItsBackEmptiesThePositionsAndTheNextReadsTheStore() async throws {
        // Given Bob's message 1 stored in a file (the next local number, 2, is in memory)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("store.sqlite")
        let f = try await StoreFixture.make(store: try MessageStore.open(path: path))
        try await f.insert(try f.message(by: f.bob, seq: 1))
        // and a second writer of the file that took local number 2
        let second = try MessageStore.open(path: path)
        #expect(
            try await second.insert(
                [try f.message(by: f.carol, seq: 1)], receivedAtMillis: 1, ownAuthor: f.alice.publicKey
            )
            .first?.storedMessage?.localNumber == 2)
        // When Bob's message 2 is inserted, the stale number fails the batch and empties the positions
        let next = try f.message(by: f.bob, seq: 2)
        await #expect(throws: StoreError.self) { try await f.insert(next) }
        #expect(f.store.committedPositions.nextLocalNumber(of: f.chat) == nil)
        // Then the next insert reads the store again and takes number 3
        #expect(try await f.stored(next).map(\.localNumber) == [3])
    }
}
