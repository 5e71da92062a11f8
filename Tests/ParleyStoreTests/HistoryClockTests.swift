import ParleyCore
import ParleyCrypto
@testable import ParleyStore
import Testing

/// History sorts by history clock (PROTOCOL §11): a member's own later message never comes before its
/// earlier one, whatever clock it claims, and one member's claim does not move the chat's clock.
struct HistoryClockTests {
    /// Alice's two messages at clocks 5 and 6; bob's first claims 100, his second only 1.
    static func made(_ f: StoreFixture) throws -> [Message] {
        [
            try f.message(by: f.alice, seq: 1, lamport: 5, text: "a1"),
            try f.message(by: f.bob, seq: 1, lamport: 100, text: "b1"),
            try f.message(by: f.bob, seq: 2, lamport: 1, text: "b2"),
            try f.message(by: f.alice, seq: 2, lamport: 6, text: "a2"),
        ]
    }

    static func history(_ store: MessageStore, _ chat: ChatID, _ edit: (inout MessageCriteria) -> Void = { _ in })
        throws -> [String]
    {
        var criteria = MessageCriteria(chat: chat, order: .history)
        edit(&criteria)
        return try store.messages(matching: criteria).map(\.message.text)
    }

    @Test(arguments: [false, true])
    func anAuthorsLaterMessageFollowsItsEarlierOneWhateverClockItClaims(laterArrivesFirst: Bool) async throws {
        // Given bob's second message claiming a lower clock than his first, arriving before or after it
        let f = try await StoreFixture.make()
        var made = try Self.made(f)
        if laterArrivesFirst { made.swapAt(1, 2) }
        for message in made { try await f.insert(message) }

        // Then history lists it after his first, at that one's clock, and pages agree
        #expect(try Self.history(f.store, f.chat) == ["a1", "a2", "b1", "b2"])
        let b2 = try #require(try f.store.message(made.first { $0.text == "b2" }!.id))
        #expect(b2.historyClock == 100 && b2.message.lamport == 1)
        #expect(
            try Self.history(f.store, f.chat) {
                $0.beforePosition = b2.historyPosition; $0.limit = 1
            } == ["b1"])
        let a2 = try #require(try f.store.message(made[3].id))
        #expect(try Self.history(f.store, f.chat) { $0.afterPosition = a2.historyPosition } == ["b1", "b2"])
        #expect(try f.store.chats().first?.lastMessage?.message.text == "b2")
    }

    @Test func theMigrationRaisesMessagesStoredBeforeIt() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("parley.sqlite")

        // Given a store on disk put back as from before the history clock, holding bob's lower second clock
        let f = try await StoreFixture.make(store: try MessageStore.open(path: path))
        for message in try Self.made(f) { try await f.insert(message) }
        try await f.store.executeUnchecked(
            """
            DROP INDEX messages_by_history_clock;
            ALTER TABLE messages DROP COLUMN history_lamport;
            CREATE INDEX messages_by_history ON messages (chat_id, lamport, author, seq);
            DELETE FROM grdb_migrations WHERE identifier = 'v12-history-clock';
            """)

        // When it is opened again, then history lists bob's second message after his first
        let reopened = try MessageStore.open(path: path)
        #expect(try Self.history(reopened, f.chat) == ["a1", "a2", "b1", "b2"])
        // and later inserts keep the rule
        _ = try await reopened.insert(
            [try f.message(by: f.bob, seq: 3, lamport: 2, text: "b3")], receivedAtMillis: 0,
            ownAuthor: f.alice.publicKey)
        #expect(try Self.history(reopened, f.chat) == ["a1", "a2", "b1", "b2", "b3"])
    }

    @Test func theChatClockLeavesOutAClaimImplausiblyFarAboveTheRest() async throws {
        // Given clocks 1…3, then bob's claim of 2^63 − 1
        let f = try await StoreFixture.make()
        for seq in 1...3 as ClosedRange<UInt64> { try await f.insert(try f.message(by: f.alice, seq: seq)) }
        try await f.insert(try f.message(by: f.bob, seq: 1, lamport: ChatClock.max))
        // Then the clock a node starts from is 3
        #expect(try f.store.chatClock(chat: f.chat) == 3)
        // When carol claims the furthest plausible step, the clock reaches it, and a further claim that
        // far above it counts too; one a step beyond does not
        let reach = 3 + ChatClock.maxStep
        try await f.insert(
            try f.message(by: f.carol, seq: 1, lamport: reach),
            try f.message(by: f.carol, seq: 2, lamport: reach + ChatClock.maxStep))
        #expect(try f.store.chatClock(chat: f.chat) == reach + ChatClock.maxStep)
        try await f.insert(try f.message(by: f.carol, seq: 3, lamport: reach + 2 * ChatClock.maxStep + 1))
        #expect(try f.store.chatClock(chat: f.chat) == reach + ChatClock.maxStep)
    }
}
