import ParleyCore
import ParleyCrypto
@testable import ParleyStore
import Testing

/// Paging through history, shown kinds, read markers, unread counts and receipts.
struct HistoryTests {
    /// Ten Text messages from Bob, numbered 1…10, with a vote (11) and an unknown tag (12) after them.
    static func chatter() async throws -> (f: StoreFixture, texts: [Message]) {
        let f = try await StoreFixture.make()
        let texts = try (1...10).map { try f.message(by: f.bob, seq: UInt64($0), text: "m\($0)") }
        for text in texts { try await f.insert(text) }
        try await f.insert(
            try f.message(
                by: f.carol, seq: 1, tag: .pollVoteUp, references: [MessageReference(id: texts[0].id, tag: .pollVoteUp)]
            ),
            try f.message(by: f.carol, seq: 2, tag: Tag("Sticker")))
        return (f, texts)
    }

    static func numbers(_ f: StoreFixture, _ edit: (inout MessageCriteria) throws -> Void) throws -> [Int64] {
        var criteria = MessageCriteria(chat: f.chat)
        try edit(&criteria)
        return try f.store.messages(matching: criteria).map(\.localNumber)
    }

    @Test func pagesBackwardsFromACursor() async throws {
        let (f, _) = try await Self.chatter()
        #expect(try Self.numbers(f) { $0.limit = 3 } == [10, 11, 12])
        #expect(
            try Self.numbers(f) {
                $0.limit = 3; $0.beforeLocalNumber = 10
            } == [7, 8, 9])
        #expect(
            try Self.numbers(f) {
                $0.limit = 3; $0.beforeLocalNumber = 3
            } == [1, 2])
        #expect(try Self.numbers(f) { $0.beforeLocalNumber = 1 }.isEmpty)
        #expect(
            try Self.numbers(f) {
                $0.beforeLocalNumber = 4; $0.tag = .text
            } == [1, 2, 3])
    }

    @Test func pagesForwardFromACursor() async throws {
        let (f, _) = try await Self.chatter()
        #expect(
            try Self.numbers(f) {
                $0.limit = 3; $0.afterLocalNumber = 2; $0.oldestFirst = true
            } == [3, 4, 5])
        #expect(
            try Self.numbers(f) {
                $0.limit = 3; $0.afterLocalNumber = 10; $0.oldestFirst = true
            } == [11, 12])
        // Without oldestFirst a limit still means the latest, as the watch stream relies on.
        #expect(
            try Self.numbers(f) {
                $0.limit = 3; $0.afterLocalNumber = 2
            } == [10, 11, 12])
        #expect(
            try Self.numbers(f) {
                $0.afterLocalNumber = 4; $0.beforeLocalNumber = 7
            } == [5, 6])
    }

    @Test func selectsByAnyOfSeveralTags() async throws {
        let (f, _) = try await Self.chatter()
        #expect(
            try Self.numbers(f) {
                $0.tags = ContentKind.shownTags; $0.limit = 2
            } == [9, 10])
        #expect(try Self.numbers(f) { $0.tags = [.pollVoteUp, try Tag("Sticker")] } == [11, 12])
        #expect(try Self.numbers(f) { $0.tags = [] }.isEmpty)
    }

    enum PagedShape: CaseIterable, Sendable {
        case before, beforeShown, afterForward, beforeByTag

        func criteria(_ chat: ChatID) -> MessageCriteria {
            switch self {
            case .before: MessageCriteria(chat: chat, limit: 50, beforeLocalNumber: 5)
            case .beforeShown: MessageCriteria(chat: chat, limit: 50, beforeLocalNumber: 5, tags: ContentKind.shownTags)
            case .afterForward: MessageCriteria(chat: chat, limit: 50, afterLocalNumber: 5, oldestFirst: true)
            case .beforeByTag: MessageCriteria(chat: chat, tag: .text, limit: 50, beforeLocalNumber: 5)
            }
        }
    }

    @Test(arguments: PagedShape.allCases)
    func pagingUsesAnIndex(shape: PagedShape) async throws {
        let (f, _) = try await Self.chatter()
        let plan = try f.store.queryPlan(shape.criteria(f.chat))
        let text = plan.joined(separator: "\n")
        #expect(plan.contains { $0.contains("USING INDEX") || $0.contains("USING COVERING INDEX") }, "\(text)")
        #expect(!plan.contains { $0.hasPrefix("SCAN") }, "\(text)")
        #expect(
            text.contains("local_number<?") || text.contains("local_number>?"),
            "the cursor bounds the index search: \(text)")
    }

    @Test func unreadCountUsesAnIndex() async throws {
        let (f, _) = try await Self.chatter()
        let plan = try f.store.unreadCountPlan(chat: f.chat, me: f.alice.publicKey)
        #expect(plan.contains { $0.contains("messages_by_tag") }, "\(plan)")
        #expect(!plan.contains { $0.hasPrefix("SCAN") }, "\(plan)")
    }

    @Test func readMarkerAdvancesAndCountsUnreadShownMessagesByOthers() async throws {
        // Given ten texts by Bob, a vote and an unknown tag by Carol, and one text by Alice (us)
        let (f, texts) = try await Self.chatter()
        let mine = try f.message(by: f.alice, seq: 1, text: "mine")
        try await f.insert(mine)
        #expect(try f.store.readMarker(chat: f.chat) == 0)
        #expect(try f.store.unreadCount(chat: f.chat, me: f.alice.publicKey) == 10)

        // When reading up to #4, then back to #2, then everything
        let me = f.alice.publicKey
        let first = try await f.store.markRead(chat: f.chat, upTo: 4, ownAuthor: me)
        let backwards = try await f.store.markRead(chat: f.chat, upTo: 2, ownAuthor: me)
        #expect(try f.store.unreadCount(chat: f.chat, me: me) == 6)
        let rest = try await f.store.markRead(chat: f.chat, ownAuthor: me)

        // Then the marker only moves forward; receipts go for the shown messages of others, not ours
        #expect(first.newlyRead == 4 && first.receipts.map(\.message) == texts.prefix(4).map(\.id))
        #expect(first.receipts.allSatisfy { $0.author == f.bob.publicKey && $0.chat == f.chat })
        #expect(backwards == ReadProgress(newlyRead: 0, receipts: []))
        #expect(rest.newlyRead == 7, "texts 5…10 and ours; the vote and the unknown tag are not shown")
        #expect(rest.receipts.map(\.message) == texts.dropFirst(4).map(\.id))
        #expect(!rest.receipts.contains { $0.message == mine.id })
        #expect(try f.store.readMarker(chat: f.chat) == 13)
        #expect(try f.store.unreadCount(chat: f.chat, me: me) == 0)
        // Reading past the end stops at the latest message.
        #expect(try await f.store.markRead(chat: f.chat, upTo: 99, ownAuthor: me).newlyRead == 0)
        #expect(try f.store.readMarker(chat: f.chat) == 13)
    }

    @Test func readReceiptsStayPendingUntilTheirAuthorAcknowledges() async throws {
        // Given Alice has read two of Bob's messages and one of Carol's
        let f = try await StoreFixture.make()
        let bob1 = try f.message(by: f.bob, seq: 1), bob2 = try f.message(by: f.bob, seq: 2),
            carols = try f.message(by: f.carol, seq: 1)
        try await f.insert(bob1, bob2, carols)
        _ = try await f.store.markRead(chat: f.chat, ownAuthor: f.alice.publicKey)
        #expect(try f.store.pendingReadReceipts().map(\.message) == [bob1.id, bob2.id, carols.id])

        // When Carol acknowledges Bob's and her own, and Bob acknowledges one of his
        try await f.store.readReceiptsAcknowledged([
            (f.carol.publicKey, [bob1.id, carols.id]), (f.bob.publicKey, [bob2.id]),
        ])

        // Then only an author's ack clears a receipt
        let pending = try f.store.pendingReadReceipts()
        #expect(pending.map(\.message) == [bob1.id])
        #expect(pending.first?.author == f.bob.publicKey && pending.first?.chat == f.chat)
    }

    @Test func recordsReadsOnlyForOwnMessagesFromCurrentMembers() async throws {
        // Given one message of ours and one of Bob's
        let f = try await StoreFixture.make()
        let mine = try f.message(by: f.alice, seq: 1)
        let bobs = try f.message(by: f.bob, seq: 1)
        try await f.insert(mine, bobs)
        let stranger = try Identity.generate().publicKey
        let me = f.alice.publicKey

        // When Bob reads both (twice), a stranger and we ourselves claim to have read ours
        #expect(
            try await f.store.recordReads([(f.chat, [mine.id, bobs.id], f.bob.publicKey)], ownAuthor: me, atMillis: 5)
                == 1)
        #expect(try await f.store.recordReads([(f.chat, [mine.id], f.bob.publicKey)], ownAuthor: me, atMillis: 9) == 0)
        #expect(try await f.store.recordReads([(f.chat, [mine.id], stranger)], ownAuthor: me, atMillis: 5) == 0)
        #expect(try await f.store.recordReads([(f.chat, [mine.id], me)], ownAuthor: me, atMillis: 5) == 0)
        // and a batch where Carol reads Bob's message and a stranger ours
        #expect(
            try await f.store.recordReads(
                [(f.chat, [bobs.id], f.carol.publicKey), (f.chat, [mine.id], stranger)], ownAuthor: me, atMillis: 6)
                == 0)
        let elsewhere = try ChatInvite.create(
            by: f.alice, title: "other", members: [f.bob.publicKey], createdAtMillis: 0)
        #expect(
            try await f.store.recordReads([(elsewhere.id, [mine.id], f.carol.publicKey)], ownAuthor: me, atMillis: 5)
                == 0)

        // Then only Bob's first receipt for our message counts; Carol has neither delivered nor read
        _ = try await f.store.recordDeliveries([(mine.id, f.carol.publicKey)], atMillis: 7)
        let receipts = try #require(try f.store.receipts(message: mine.id))
        #expect(receipts.count == 2)
        let bob = try #require(receipts.first { $0.member == f.bob.publicKey })
        let carol = try #require(receipts.first { $0.member == f.carol.publicKey })
        #expect(bob.read && bob.readAtMillis == 5)
        #expect(bob.delivered && bob.deliveredAtMillis == nil, "a read implies delivery even if the ack was lost")
        #expect(carol.delivered && carol.deliveredAtMillis == 7 && !carol.read)
        #expect(try f.store.receipts(message: Digest32(rawRepresentation: [UInt8](repeating: 7, count: 32))) == nil)
    }
}

/// Chats list in history order (Lamport clock, author, sequence): the same on every node, whatever
/// order the messages arrived in.
struct HistoryOrderTests {
    @Test func listsAndPagesByHistoryPositionNotArrival() async throws {
        // Given messages arriving out of their causal order: bob's 3rd, alice's 1st, bob's 1st, …
        let f = try await StoreFixture.make()
        let made = [
            try f.message(by: f.bob, seq: 3, lamport: 9, text: "late"),
            try f.message(by: f.alice, seq: 1, lamport: 2, text: "a1"),
            try f.message(by: f.bob, seq: 1, lamport: 2, text: "b1"),
            try f.message(by: f.bob, seq: 2, lamport: 5, text: "b2"),
            try f.message(by: f.alice, seq: 2, lamport: 5, text: "a2"),
        ]
        for message in made { try await f.insert(message) }
        let expected = made.sorted { HistoryPosition($0) < HistoryPosition($1) }.map(\.text)

        // Then the history lists them by position, and pages by position both ways
        func texts(_ edit: (inout MessageCriteria) -> Void) throws -> [String] {
            var criteria = MessageCriteria(chat: f.chat, order: .history)
            edit(&criteria)
            return try f.store.messages(matching: criteria).map(\.message.text)
        }
        #expect(try texts { _ in } == expected)
        #expect(expected.first.map { ["a1", "b1"].contains($0) } == true && expected.last == "late")
        let middle = HistoryPosition(made[3]) // bob's 2nd
        #expect(
            try texts {
                $0.beforePosition = middle; $0.limit = 2
            } == Array(expected.prefix { $0 != "b2" }.suffix(2)))
        #expect(
            try texts {
                $0.afterPosition = middle; $0.limit = 1; $0.oldestFirst = true
            }
                == [expected[expected.firstIndex(of: "b2")! + 1]])
        // and a chat's latest message is the latest in history, not the latest to arrive
        #expect(try f.store.chats().first?.lastMessage?.message.text == "late")
        #expect(try f.store.messages(matching: MessageCriteria(chat: f.chat)).map(\.message.text) == made.map(\.text))
    }
}
