import ParleyCore
import ParleyCrypto
@testable import ParleyStore
import Testing

@Suite struct InsertTests {
    @Test func storesMessagesAndReadsThemBack() async throws {
        let f = try await StoreFixture.make()
        let hello = try f.message(by: f.bob, seq: 1, text: "hello")

        let outcomes = try await f.insert(hello)

        let stored = try #require(outcomes.first?.storedMessage)
        #expect(stored.message == hello)
        #expect(stored.state == .received)
        #expect(stored.receivedAtMillis == 1000)
        #expect(try f.store.message(hello.id) == stored)
        #expect(try f.store.message(f.message(by: f.bob, seq: 2).id) == nil)
    }

    @Test func ownMessagesStartPending() async throws {
        let f = try await StoreFixture.make()
        let mine = try f.message(by: f.alice, seq: 1)
        #expect(try await f.stored(mine).first?.state == .pending)
    }

    @Test func dropsDuplicatesAndEquivocationKeepingTheFirst() async throws {
        // Given Bob's message 1 is stored
        let f = try await StoreFixture.make()
        let first = try f.message(by: f.bob, seq: 1, text: "first")
        try await f.insert(first)

        // When the same message and a different one with the same sequence arrive, in one batch with a repeat
        let twin = try f.message(by: f.bob, seq: 1, text: "equivocation")
        let next = try f.message(by: f.bob, seq: 2)
        let outcomes = try await f.insert(first, twin, next, next)

        // Then only the new message is stored, the first version of seq 1 is kept, and the second is named a fork
        #expect(outcomes[0] == .duplicate)
        #expect(outcomes[1] == .equivocation)
        #expect(outcomes[2].storedMessage?.localNumber == 2)
        #expect(outcomes[3] == .duplicate)
        #expect(try f.store.message(first.id)?.message.text == "first")
        #expect(try f.store.message(twin.id) == nil)
    }

    @Test func rejectsUnknownChatAndNonMembers() async throws {
        let f = try await StoreFixture.make()
        let mallory = try Identity.generate()
        let otherChat = try ChatInvite.create(by: f.bob, title: "other", members: [], createdAtMillis: 0)

        let outcomes = try await f.insert(
            f.message(by: f.bob, seq: 1, in: otherChat.id),
            f.message(by: mallory, seq: 1))

        #expect(outcomes == [.unknownChat, .notMember])
        #expect(try f.store.messages(matching: MessageCriteria(chat: f.chat)).isEmpty)
    }

    @Test func rejectsSequencesBeyondSQLiteIntegers() async throws {
        let f = try await StoreFixture.make()
        let outcomes = try await f.insert(
            f.message(by: f.bob, seq: UInt64.max), f.message(by: f.bob, seq: 1, lamport: UInt64(Int64.max) + 1))
        #expect(outcomes == [.outOfRange, .outOfRange])
    }

    @Test func numbersArrivalsPerChat() async throws {
        // Given two chats in one store
        let f = try await StoreFixture.make()
        let second = try ChatInvite.create(by: f.alice, title: "second", members: [f.bob.publicKey], createdAtMillis: 0)
        #expect(try await f.store.saveChat(second, joinedAtMillis: 0))

        // When messages for both arrive interleaved, over two batches
        let a = try await f.stored(
            f.message(by: f.bob, seq: 5), f.message(by: f.bob, seq: 1, in: second.id), f.message(by: f.carol, seq: 1))
        let b = try await f.stored(f.message(by: f.bob, seq: 2, in: second.id), f.message(by: f.bob, seq: 1))

        // Then each chat counts 1, 2, 3… in arrival order, whatever the sequence numbers
        #expect(a.map(\.localNumber) == [1, 1, 2])
        #expect(b.map(\.localNumber) == [2, 3])
        #expect(try f.store.messages(matching: MessageCriteria(chat: f.chat)).map(\.localNumber) == [1, 2, 3])
    }

    @Test func versionVectorListsTheGapsOfEachAuthor() async throws {
        // Given Bob's 1, 2, 4, 5, 8 (3, 6 and 7 missing) and Carol's 2 only
        let f = try await StoreFixture.make()
        try await f.insert(
            f.message(by: f.bob, seq: 1), f.message(by: f.bob, seq: 2), f.message(by: f.bob, seq: 4),
            f.message(by: f.bob, seq: 5), f.message(by: f.bob, seq: 8), f.message(by: f.carol, seq: 2))
        #expect(
            try f.store.versionVector(chat: f.chat) == [
                f.bob.publicKey: try AuthorHoldings(highest: 8, missing: [3...3, 6...7]),
                f.carol.publicKey: try AuthorHoldings(highest: 2, missing: [1...1]),
            ])
        #expect(try f.store.authorsWithMessages(chat: f.chat) == [f.bob.publicKey: 8, f.carol.publicKey: 2])

        // When the gaps are filled
        try await f.insert(
            f.message(by: f.bob, seq: 3), f.message(by: f.bob, seq: 6), f.message(by: f.bob, seq: 7),
            f.message(by: f.carol, seq: 1))

        // Then every author is contiguous again
        #expect(
            try f.store.versionVector(chat: f.chat) == [
                f.bob.publicKey: .contiguous(8), f.carol.publicKey: .contiguous(2),
            ])
    }

    @Test func versionVectorSummarisesMoreGapsThanTheLimit() async throws {
        // Given Bob's odd sequences 1, 3, …, 41: twenty gaps
        let f = try await StoreFixture.make()
        for seq in stride(from: 1, through: 41, by: 2) { try await f.insert(f.message(by: f.bob, seq: UInt64(seq))) }

        // Then the vector lists the first 16 gaps and claims nothing past the held run that follows them
        let holdings = try #require(try f.store.versionVector(chat: f.chat)[f.bob.publicKey])
        #expect(holdings.missing.count == AuthorHoldings.maxMissingRanges)
        #expect(holdings.missing.last == 32...32)
        #expect(holdings.highest == 33)
    }

    @Test func servesAnAuthorsMessagesInRanges() async throws {
        let f = try await StoreFixture.make()
        for seq in [4, 1, 3, 2, 7] as [UInt64] { try await f.insert(f.message(by: f.bob, seq: seq)) }
        try await f.insert(f.message(by: f.carol, seq: 1))

        let page = try f.store.encodings(chat: f.chat, author: f.bob.publicKey, in: [2...3, 5...9], limit: 10)
        #expect(page.map(\.sequence) == [2, 3, 7])
        #expect(
            try f.store.encodings(chat: f.chat, author: f.bob.publicKey, in: [2...3, 5...9], limit: 2).map(\.sequence)
                == [2, 3])
        #expect(try f.store.encodings(chat: f.chat, author: f.bob.publicKey, in: [8...100], limit: 10).isEmpty)
    }

    @Test func servesStoredEncodingsWithTheirIdsAndHeadsAsStored() async throws {
        // Given a signed head and the chained message before it
        let f = try await StoreFixture.make()
        let first = try f.message(by: f.bob, seq: 1).draft.chained()
        var draft = try f.message(by: f.bob, seq: 2, text: "head").draft
        draft.previous = first.id
        let head = try draft.signed(by: f.bob)
        try await f.insert(first, head)

        // Then a sync read gives each one's exact wire bytes, id, sequence and whether it is a head
        let page = try f.store.encodings(chat: f.chat, author: f.bob.publicKey, in: [1...2], limit: 10)
        #expect(
            page == [
                StoredEncoding(id: first.id, sequence: 1, isHead: false, encoded: first.encoded),
                StoredEncoding(id: head.id, sequence: 2, isHead: true, encoded: head.encoded),
            ])
    }

    @Test func nextSequenceIsOneAboveTheAuthorsHighestStored() async throws {
        let f = try await StoreFixture.make()
        #expect(try f.store.nextSequence(chat: f.chat, author: f.alice.publicKey) == 1)

        try await f.insert(f.message(by: f.alice, seq: 1, lamport: 7), f.message(by: f.alice, seq: 3, lamport: 4))

        #expect(try f.store.nextSequence(chat: f.chat, author: f.alice.publicKey) == 4)
        #expect(try f.store.nextSequence(chat: f.chat, author: f.bob.publicKey) == 1)
    }
}
