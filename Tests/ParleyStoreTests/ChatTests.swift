import ParleyCore
import ParleyCrypto
@testable import ParleyStore
import Testing

@Suite struct ChatTests {
    @Test func savingAChatTwiceIsIdempotent() async throws {
        let store = try MessageStore.inMemory()
        let alice = try Identity.generate()
        let invite = try ChatInvite.create(by: alice, title: "t", members: [], createdAtMillis: 5)

        #expect(try await store.saveChat(invite, joinedAtMillis: 10))
        #expect(try await !store.saveChat(invite, joinedAtMillis: 20))

        #expect(try store.chat(invite.id) == invite)
        #expect(try store.chats().count == 1)
    }

    @Test func unknownChatIsNil() throws {
        let store = try MessageStore.inMemory()
        let id = try ChatID(rawRepresentation: [UInt8](repeating: 7, count: 32))
        #expect(try store.chat(id) == nil)
    }

    @Test func listsChatsByTitleWithCountsAndLastMessage() async throws {
        // Given "b" with two messages and "a" with none
        let f = try await StoreFixture.make()
        let b = try ChatInvite.create(by: f.alice, title: "b", members: [f.bob.publicKey], createdAtMillis: 0)
        let a = try ChatInvite.create(by: f.alice, title: "a", members: [], createdAtMillis: 0)
        _ = try await f.store.saveChat(b, joinedAtMillis: 0)
        _ = try await f.store.saveChat(a, joinedAtMillis: 0)
        let last = try f.message(by: f.alice, seq: 1, lamport: 2, in: b.id) // later in history than bob's
        try await f.insert(f.message(by: f.bob, seq: 1, in: b.id), last)

        // When listing
        let summaries = try f.store.chats()

        // Then they come sorted by title, with tallies
        #expect(summaries.map(\.invite.title) == ["a", "b", "t"])
        #expect(summaries.map(\.messageCount) == [0, 2, 0])
        #expect(summaries[1].lastMessage?.message == last)
        #expect(summaries[0].lastMessage == nil)
    }
}
