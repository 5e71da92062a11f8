import Foundation
import GRDB
import ParleyCore
import ParleyCrypto
@testable import ParleyStore
import ParleyTestKit
import Testing

/// Full-text search over the store's own plaintext: what is indexed, how the user's words are
/// matched, edits found as their target by their latest text, and the index following deletions.
struct SearchTests {
    let edit = try! Tag("Edit")

    /// Runs the indexer until it has gone through every stored message.
    func caughtUp(_ store: MessageStore) async throws {
        for _ in 0..<100 where try await store.indexForSearch() > 0 {}
        #expect(try store.searchIndexIsBehind() == false)
    }

    func texts(_ hits: [SearchHit]) -> [String] { hits.map(\.stored.message.text) }

    func anEdit(_ fixture: StoreFixture, by author: Identity, seq: UInt64, of target: Message, to text: String) throws
        -> Message
    {
        try fixture.message(
            by: author, seq: seq, tag: edit, text: text, references: [MessageReference(id: target.id, tag: edit)])
    }

    @Test func wordsAreFoundByPrefixIgnoringCaseAndDiacriticsNewestFirstWithASnippet() async throws {
        // Given three texts stored one after another
        let fixture = try await StoreFixture.make()
        try await fixture.insert(
            try fixture.message(by: fixture.bob, seq: 1, text: "Lunch at the Café tomorrow?"),
            try fixture.message(by: fixture.bob, seq: 2, text: "nothing to see here"))
        try await fixture.insert(
            try fixture.message(by: fixture.carol, seq: 1, text: "CAFE is closed, lunch elsewhere"))
        try await caughtUp(fixture.store)

        // When both words are searched for, one as a prefix, another in lower case without its accent
        let hits = try fixture.store.search(text: "lun cafe")

        // Then both texts holding them are found, the one stored last first, each with its words marked
        #expect(texts(hits) == ["CAFE is closed, lunch elsewhere", "Lunch at the Café tomorrow?"])
        #expect(hits[1].snippet.filter(\.isMatch).map(\.text) == ["Lunch", "Café"])
        #expect(hits[1].snippet.map(\.text).joined() == "Lunch at the Café tomorrow?")
        #expect(hits[1].matched == hits[1].stored.id)
    }

    @Test func theTextIsWordsNotQuerySyntaxAndATextWithoutWordsIsRefused() async throws {
        let fixture = try await StoreFixture.make()
        try await fixture.insert(
            try fixture.message(by: fixture.bob, seq: 1, text: #"she said "don't" (NEAR the end) and OR"#))
        try await caughtUp(fixture.store)

        // Quotes, operators and brackets are words or separators, never FTS5 syntax
        for text in [#""don't""#, "NEAR(", "end) OR", "said -", "*she", "the AND"] {
            #expect(try fixture.store.search(text: text).count == 1, "\(text)")
        }
        #expect(try fixture.store.search(text: "said NOT").isEmpty)
        for text in ["", "   ", "- \" ( *", "🎉"] {
            #expect(throws: StoreError.self) { try fixture.store.search(text: text) }
        }
    }

    @Test func textsCustomContentAndPollsAreIndexedOtherTagsAreNot() async throws {
        // Given a poll, a custom message, and an answer and a reaction holding the same word
        let fixture = try await StoreFixture.make()
        let spec = PollSpec(question: "Where to?", description: "for the offsite", options: ["Lakeside", "Mountains"])
        let poll = try fixture.message(by: fixture.bob, seq: 1, tag: .poll, content: try spec.encoded())
        try await fixture.insert(
            poll, try fixture.message(by: fixture.bob, seq: 2, tag: .custom, text: #"{"place":"lakeside"}"#),
            try fixture.message(
                by: fixture.carol, seq: 1, tag: .pollAnswer, text: "lakeside please",
                references: [MessageReference(id: poll.id, tag: .pollAnswer)]))
        try await caughtUp(fixture.store)

        // Then the poll is found by an option, its question and its description, and the custom message by
        // its JSON; the answer is not indexed
        #expect(try fixture.store.search(text: "lakeside").map(\.stored.message.tag) == [.custom, .poll])
        #expect(try fixture.store.search(text: "where offsite").map(\.stored.id) == [poll.id])
        #expect(try fixture.store.search(text: "lakeside", tag: .poll).map(\.stored.id) == [poll.id])
    }

    @Test func anEditIsFoundAsItsTargetByTheLatestTextOnly() async throws {
        // Given Bob's text, edited twice by him, and an "edit" of it by Carol
        let fixture = try await StoreFixture.make()
        let original = try fixture.message(by: fixture.bob, seq: 1, text: "meet at noon")
        try await fixture.insert(
            original, try anEdit(fixture, by: fixture.bob, seq: 2, of: original, to: "meet at one"),
            try anEdit(fixture, by: fixture.carol, seq: 1, of: original, to: "meet at midnight"))
        let latest = try anEdit(fixture, by: fixture.bob, seq: 3, of: original, to: "meet at two")
        try await fixture.insert(latest)
        try await caughtUp(fixture.store)

        // Then the latest text finds the original message, naming the edit that matched
        let hits = try fixture.store.search(text: "two")
        #expect(hits.map(\.stored.id) == [original.id])
        #expect(hits.map(\.matched) == [latest.id])
        #expect(hits.first?.snippet.map(\.text).joined() == "meet at two")
        // And a word shared by every version finds it once; earlier texts and Carol's edit find nothing
        #expect(try fixture.store.search(text: "meet").map(\.stored.id) == [original.id])
        for text in ["noon", "one", "midnight"] { #expect(try fixture.store.search(text: text).isEmpty, "\(text)") }
    }

    @Test func anEditStoredBeforeItsTargetIsFoundOnceTheTargetIsStored() async throws {
        let fixture = try await StoreFixture.make()
        let original = try fixture.message(by: fixture.bob, seq: 1, text: "draft")
        try await fixture.insert(try anEdit(fixture, by: fixture.bob, seq: 2, of: original, to: "final words"))
        try await caughtUp(fixture.store)
        #expect(try fixture.store.search(text: "final").isEmpty)

        try await fixture.insert(original)
        try await caughtUp(fixture.store)
        #expect(try fixture.store.search(text: "final").map(\.stored.id) == [original.id])
        #expect(try fixture.store.search(text: "draft").isEmpty)
    }

    @Test func contentEmptiedByADeletionLeavesTheIndexIndexedOrNot() async throws {
        // Given an edited message, indexed, and another stored but not yet indexed
        let fixture = try await StoreFixture.make()
        let original = try fixture.message(by: fixture.bob, seq: 1, text: "secret plan")
        let edited = try anEdit(fixture, by: fixture.bob, seq: 2, of: original, to: "secret plan B")
        try await fixture.insert(original, edited)
        try await caughtUp(fixture.store)
        #expect(try fixture.store.search(text: "secret").count == 1)
        let later = try fixture.message(by: fixture.carol, seq: 1, text: "secret too")
        try await fixture.insert(later)

        // When both are deleted for everyone, as the node does: their content emptied in place
        try fixture.store.writeNow("deleting for everyone") { db in
            for id in [original.id, edited.id, later.id] {
                try db.execute(sql: "UPDATE messages SET content = x'' WHERE id = ?", arguments: [id.blob])
            }
        }
        try await caughtUp(fixture.store)

        // Then no deleted text can be found, neither the indexed versions nor the one indexed after
        for text in ["secret", "plan", "too"] { #expect(try fixture.store.search(text: text).isEmpty, "\(text)") }
        let rows = try fixture.store.read("counting") { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM message_search")
        }
        #expect(rows == 0)
    }

    @Test func newContentWrittenInPlaceIsIndexedAgain() async throws {
        let fixture = try await StoreFixture.make()
        let message = try fixture.message(by: fixture.bob, seq: 1, text: "old words")
        try await fixture.insert(message, try fixture.message(by: fixture.bob, seq: 2, text: "another"))
        try await caughtUp(fixture.store)

        try fixture.store.writeNow("rewriting") { db in
            try db.execute(
                sql: "UPDATE messages SET content = ? WHERE id = ?",
                arguments: [Data("new words".utf8), message.id.blob])
        }
        #expect(try fixture.store.search(text: "old").isEmpty)
        #expect(try fixture.store.searchIndexIsBehind())
        try await caughtUp(fixture.store)
        #expect(try fixture.store.search(text: "new").map(\.stored.id) == [message.id])
        #expect(try fixture.store.search(text: "another").count == 1)
    }

    @Test func sealedContentIsIndexedOnlyWhereItCanBeOpened() async throws {
        // Given a keyed chat's message, stored by a node holding its key and by one holding none
        let alice = try Identity.generate(), bob = try Identity.generate()
        let key = try ChatKey.generate()
        let invite = try ChatInvite.create(
            by: alice, title: "Keyed", members: [bob.publicKey], key: key, createdAtMillis: 0)
        let content = SealedContent.seal(
            Array("hidden treasure".utf8), with: EpochKey(epoch: 0, key: key), chat: invite.id, author: bob.publicKey,
            sequence: 1)
        let message = try MessageDraft(
            chat: invite.id, author: bob.publicKey, sequence: 1, lamport: 1, timestampMillis: 0, tag: .text,
            content: content
        ).signed(by: bob)
        var found: [Int] = []
        for held in [[EpochKey(epoch: 0, key: key)], []] {
            let store = try MessageStore.inMemory()
            _ = try await store.saveChat(invite, key: held.first, joinedAtMillis: 0)
            _ = try await store.insert([message], receivedAtMillis: 0, ownAuthor: alice.publicKey)
            try await caughtUp(store)
            found.append(try store.search(text: "treasure").count)
        }
        // Then the first finds it by its plaintext, the second cannot
        #expect(found == [1, 0])
    }

    @Test func hitsAreFilteredByChatAuthorAndTagAndPagedByTheLastMatch() async throws {
        let fixture = try await StoreFixture.make()
        let other = try ChatInvite.create(
            by: fixture.alice, title: "other", members: [fixture.bob.publicKey], createdAtMillis: 0)
        _ = try await fixture.store.saveChat(other, joinedAtMillis: 0)
        for seq in 1...5 {
            try await fixture.insert(try fixture.message(by: fixture.bob, seq: UInt64(seq), text: "ping \(seq)"))
        }
        try await fixture.insert(try fixture.message(by: fixture.carol, seq: 1, text: "ping carol"))
        try await fixture.insert(try fixture.message(by: fixture.bob, seq: 1, text: "ping elsewhere", in: other.id))
        try await caughtUp(fixture.store)
        let store = fixture.store

        #expect(try texts(store.search(text: "ping", limit: 2)) == ["ping elsewhere", "ping carol"])
        #expect(try texts(store.search(text: "ping", chat: other.id)) == ["ping elsewhere"])
        #expect(try store.search(text: "ping", chat: fixture.chat, author: fixture.bob.publicKey).count == 5)
        #expect(try store.search(text: "ping", tag: .poll).isEmpty)
        // Pages follow each other with the last hit's `matched` as the cursor
        let first = try store.search(text: "ping", chat: fixture.chat, author: fixture.bob.publicKey, limit: 3)
        let second = try store.search(
            text: "ping", chat: fixture.chat, author: fixture.bob.publicKey, limit: 3, before: first.last?.matched)
        #expect(texts(first + second) == ["ping 5", "ping 4", "ping 3", "ping 2", "ping 1"])
        #expect(throws: StoreError.self) { try store.search(text: "ping", limit: 0) }
    }

    @Test func aForkedMembersMessagesFromTheForkOnAreLeftOutWhenAsked() async throws {
        let fixture = try await StoreFixture.make()
        try await fixture.insert(
            try fixture.message(by: fixture.bob, seq: 1, text: "hello one"),
            try fixture.message(by: fixture.bob, seq: 2, text: "hello two"))
        _ = try await fixture.store.recordFork(
            try ForkProof.forged(chat: fixture.chat, author: fixture.bob, sequence: 2), atMillis: 0)
        try await caughtUp(fixture.store)

        #expect(try texts(fixture.store.search(text: "hello", withoutForked: true)) == ["hello one"])
        #expect(try fixture.store.search(text: "hello").count == 2)
    }

    @Test func theIndexerWorksInBoundedBatchesUntilCaughtUp() async throws {
        let fixture = try await StoreFixture.make()
        let messages = try (1...25).map { try fixture.message(by: fixture.bob, seq: UInt64($0), text: "word \($0)") }
        _ = try await fixture.store.insert(messages, receivedAtMillis: 0, ownAuthor: fixture.alice.publicKey)
        #expect(try await fixture.store.indexForSearch(limit: 10) == 10)
        #expect(try fixture.store.search(text: "word").count == 10)
        #expect(try await fixture.store.indexForSearch(limit: 10) == 10)
        #expect(try await fixture.store.indexForSearch(limit: 10) == 5)
        #expect(try await fixture.store.indexForSearch(limit: 10) == 0)
        #expect(try fixture.store.search(text: "word", limit: 200).count == 25)
    }
}
