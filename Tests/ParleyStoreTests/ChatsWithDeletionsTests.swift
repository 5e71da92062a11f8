import ParleyCore
import ParleyCrypto
@testable import ParleyStore
import Testing

/// A stored batch asks whether an earlier deletion named one of its messages; a chat known to hold no
/// deletion answers without a read, and what the store holds is never hidden by that.
@Suite struct ChatsWithDeletionsTests {
    @Test func aDeletionStoredAfterANegativeAnswerIsFound() async throws {
        // Given Bob's text, asked about while the chat has no deletion
        let f = try await StoreFixture.make()
        let text = try f.message(by: f.bob, seq: 1)
        try await f.insert(text)
        #expect(try f.store.deletionTargets(chat: f.chat, among: [text.id]).isEmpty)
        #expect(f.store.chatsWithDeletions.holdsDeletion(f.chat) == false)

        // When his deletion of it is stored
        try await f.insert(
            try f.message(by: f.bob, seq: 2, tag: .delete, references: [MessageReference(id: text.id, tag: .delete)]))

        // Then the text is a deletion target
        #expect(try f.store.deletionTargets(chat: f.chat, among: [text.id]) == [text.id])
    }

    @Test func aStoreOpenedAgainFindsADeletionStoredBefore() async throws {
        // Given a deletion stored in a file store, before its target arrived
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("store.sqlite")
        let f = try await StoreFixture.make(store: try MessageStore.open(path: path))
        let text = try f.message(by: f.bob, seq: 1)
        try await f.insert(
            try f.message(by: f.bob, seq: 2, tag: .delete, references: [MessageReference(id: text.id, tag: .delete)]))

        // When the file is opened again (nothing known in memory) and the target arrives
        let reopened = try MessageStore.open(path: path)
        #expect(reopened.chatsWithDeletions.holdsDeletion(f.chat) == nil)
        let outcomes = try await reopened.insert([text], receivedAtMillis: 1000, ownAuthor: f.alice.publicKey)
        #expect(outcomes.first?.storedMessage != nil)

        // Then the read finds the deletion, and the chat is known to hold one
        #expect(try reopened.deletionTargets(chat: f.chat, among: [text.id]) == [text.id])
        #expect(reopened.chatsWithDeletions.holdsDeletion(f.chat) == true)
    }

    @Test func aRolledBackDeletionMarksNothing() async throws {
        let f = try await StoreFixture.make()
        await #expect(throws: StoreError.self) {
            try await f.store.write("a write that fails after storing a deletion") { db in
                f.store.chatsWithDeletions.add([f.chat], in: db)
                throw CancellationError()
            }
        }
        #expect(f.store.chatsWithDeletions.holdsDeletion(f.chat) == nil)
    }

    @Test func aReadThatFoundNoneDoesNotUndoADeletionCommittedMeanwhile() async throws {
        // Given a deletion's commit marking the chat, then a read from an older snapshot reporting none
        let f = try await StoreFixture.make()
        try await f.store.write("a committed deletion") { db in f.store.chatsWithDeletions.add([f.chat], in: db) }
        f.store.chatsWithDeletions.learn(f.chat, holdsDeletion: false)

        // Then the chat is still known to hold one
        #expect(f.store.chatsWithDeletions.holdsDeletion(f.chat) == true)
    }
}
