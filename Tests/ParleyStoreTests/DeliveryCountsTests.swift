import Testing
import ParleyCore
import ParleyCrypto
@testable import ParleyStore

/// What the delivery ticks are drawn from: every stored message read back carries, for own messages,
/// how many other members acknowledged it, read it, and are there to reach.
struct DeliveryCountsTests {
    @Test func ownMessagesCarryTheirReadersAndRecipientsAndOthersCarryNone() async throws {
        // Given alice's chat with bob and carol, a message of hers (sent) and one of bob's
        let f = try await StoreFixture.make()
        let me = f.alice.publicKey
        let mine = try f.message(by: f.alice, seq: 1), bobs = try f.message(by: f.bob, seq: 1)
        try await f.insertSent(mine)
        try await f.insert(bobs)
        let fresh = try #require(try f.store.message(mine.id))
        #expect(fresh.state == .sent && fresh.deliveredTo == 0 && fresh.readBy == 0 && fresh.recipients == 2)

        // When bob acknowledges and reads hers, and a stranger claims to have read it
        _ = try await f.store.recordDeliveries([(mine.id, f.bob.publicKey)], atMillis: 5)
        try await f.store.recordReads([(f.chat, [mine.id], f.bob.publicKey)], ownAuthor: me, atMillis: 6)
        try await f.store.recordReads(
            [(f.chat, [mine.id], try Identity.generate().publicKey)], ownAuthor: me, atMillis: 6)

        // Then her message, by id and in a criteria query, counts bob as its one reader of two recipients
        let listed = try f.store.messages(matching: MessageCriteria(chat: f.chat))
        for stored in [try #require(try f.store.message(mine.id)), try #require(listed.first { $0.id == mine.id })] {
            #expect(stored.deliveredTo == 1 && stored.readBy == 1 && stored.recipients == 2)
        }
        // and bob's message, someone else's, carries no counts
        let others = try #require(listed.first { $0.id == bobs.id })
        #expect(others.state == .received && others.readBy == 0 && others.recipients == 0)
    }
}
