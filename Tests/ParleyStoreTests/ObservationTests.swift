import ParleyCore
import ParleyCrypto
@testable import ParleyStore
import Testing

@Suite(.timeLimit(.minutes(3))) struct ObservationTests {
    @Test func emitsCurrentResultsThenOnInsert() async throws {
        // Given an observation of Bob's up-votes
        let f = try await StoreFixture.make()
        let first = try f.message(by: f.bob, seq: 1, tag: .pollVoteUp)
        try await f.insert(first)
        var updates = f.store.observe(MessageCriteria(chat: f.chat, tag: .pollVoteUp)).makeAsyncIterator()
        #expect(try await updates.next()?.map(\.message) == [first])

        // When an unrelated message, then a matching one, arrive
        try await f.insert(f.message(by: f.carol, seq: 1))
        let second = try f.message(by: f.carol, seq: 2, tag: .pollVoteUp)
        try await f.insert(second)

        // Then the next emission is the new result (the unrelated insert changed nothing)
        #expect(try await updates.next()?.map(\.message) == [first, second])
    }

    @Test func emitsChatCounts() async throws {
        let f = try await StoreFixture.make()
        var counts = f.store.observeChat(f.chat).makeAsyncIterator()
        #expect(try await counts.next() == 0)

        try await f.insert(f.message(by: f.bob, seq: 1), f.message(by: f.bob, seq: 2))

        #expect(try await counts.next() == 2)
    }

    @Test func emitsWhenDeliveryStateChanges() async throws {
        let f = try await StoreFixture.make()
        let mine = try f.message(by: f.alice, seq: 1)
        try await f.insertSent(mine)
        var updates = f.store.observe(MessageCriteria(chat: f.chat)).makeAsyncIterator()
        #expect(try await updates.next()?.first?.state == .sent)

        _ = try await f.store.recordDeliveries([(mine.id, f.bob.publicKey), (mine.id, f.carol.publicKey)], atMillis: 1)

        #expect(try await updates.next()?.first?.state == .delivered)
    }
}
