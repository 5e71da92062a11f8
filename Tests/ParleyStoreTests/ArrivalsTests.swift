import ParleyCore
import ParleyCrypto
@testable import ParleyStore
import Testing

@Suite(.timeLimit(.minutes(3))) struct ArrivalsTests {
    @Test func announcesEachCommitOfTheChatWithItsNewMessagesInOrder() async throws {
        // Given a subscriber to the fixture's chat, and a second chat
        let f = try await StoreFixture.make()
        let elsewhere = try ChatInvite.create(
            by: f.alice, title: "other", members: [f.bob.publicKey], createdAtMillis: 0)
        _ = try await f.store.saveChat(elsewhere, joinedAtMillis: 0)
        var arrivals = f.store.arrivals(chat: f.chat).makeAsyncIterator()

        // When a single message, a duplicate of it with a message of the other chat, then a burst
        // larger than a caller-thread insert are stored
        let first = try f.message(by: f.bob, seq: 1)
        try await f.insert(first)
        try await f.insert(first, f.message(by: f.bob, seq: 1, in: elsewhere.id))
        let burst = try (1...(MessageStore.maxInsertOnCallerThread + 4)).map {
            try f.message(by: f.carol, seq: UInt64($0))
        }
        _ = try await f.store.insert(burst.reversed(), receivedAtMillis: 1000, ownAuthor: f.alice.publicKey)

        // Then the chat hears of the first message, nothing for the commit that stored nothing in it,
        // then the whole burst in local-number order
        let one = try #require(await arrivals.next())
        #expect(one.ids == [first.id])
        #expect(one.highestLocalNumber == 1)
        let many = try #require(await arrivals.next())
        #expect(many.ids == burst.reversed().map(\.id))
        #expect(many.highestLocalNumber == Int64(burst.count) + 1)
    }

    @Test func stopsAnnouncingToACancelledSubscriber() async throws {
        let f = try await StoreFixture.make()
        let listening = Task {
            var count = 0
            for await _ in f.store.arrivals(chat: f.chat) { count += 1 }
            return count
        }
        listening.cancel()
        #expect(await listening.value == 0)
        try await f.insert(f.message(by: f.bob, seq: 1))
        #expect(f.store.arrivalHub.subscriberCount == 0)
    }
}
