import ParleyCore
import ParleyCrypto
@testable import ParleyStore
import Testing

@Suite struct DeliveryTests {
    @Test func ownMessageGoesSentThenDeliveredOnceEveryMemberAcks() async throws {
        // Given Alice's message in a chat with Bob and Carol, stored by her send path
        let f = try await StoreFixture.make()
        let mine = try f.message(by: f.alice, seq: 1)
        try await f.insertSent(mine)
        #expect(try f.store.message(mine.id)?.state == .sent)

        // When it is acknowledged by Bob (twice), then by Carol
        let afterBob = try await f.store.recordDeliveries(
            [(mine.id, f.bob.publicKey), (mine.id, f.bob.publicKey)], atMillis: 1)
        #expect(afterBob == [mine.id: DeliveryProgress(deliveredTo: 1, recipients: 2, grew: true)])
        #expect(try f.store.message(mine.id)?.state == .sent)
        let afterCarol = try await f.store.recordDeliveries([(mine.id, f.carol.publicKey)], atMillis: 2)

        // Then it is delivered to both
        #expect(afterCarol == [mine.id: DeliveryProgress(deliveredTo: 2, recipients: 2, grew: true)])
        let stored = try #require(try f.store.message(mine.id))
        #expect(stored.state == .delivered)
        #expect(stored.deliveredTo == 2)
    }

    @Test func aBatchOfAcksLargerThanOneStatementRecordsEachOnceAndSettlesEveryMessage() async throws {
        // Given 600 own messages sent (more than the 256 each statement takes)
        let f = try await StoreFixture.make()
        let mine = try (1...600).map { try f.message(by: f.alice, seq: UInt64($0)) }
        _ = try await f.store.insert(mine, receivedAtMillis: 1000, ownAuthor: f.alice.publicKey, ownSent: true)

        // When Bob acks all of them, Carol the first 300, and every ack comes twice, in one batch
        let acks = mine.map { ($0.id, f.bob.publicKey) } + mine.prefix(300).map { ($0.id, f.carol.publicKey) }
        let progress = try await f.store.recordDeliveries(acks + acks, atMillis: 9)

        // Then each message counts each member once, and exactly those both acked are delivered
        #expect(progress.count == 600)
        #expect(
            mine.prefix(300).allSatisfy {
                progress[$0.id] == DeliveryProgress(deliveredTo: 2, recipients: 2, grew: true)
            })
        #expect(
            mine.suffix(300).allSatisfy {
                progress[$0.id] == DeliveryProgress(deliveredTo: 1, recipients: 2, grew: true)
            })
        #expect(try mine.prefix(300).allSatisfy { try f.store.message($0.id)?.state == .delivered })
        #expect(try mine.suffix(300).allSatisfy { try f.store.message($0.id)?.state == .sent })

        // And the same acks again change nothing, not even when they were first delivered
        let again = try await f.store.recordDeliveries(acks, atMillis: 10)
        #expect(again.count == 600)
        #expect(
            mine.prefix(300).allSatisfy { again[$0.id] == DeliveryProgress(deliveredTo: 2, recipients: 2, grew: false) }
        )
        #expect(
            mine.suffix(300).allSatisfy { again[$0.id] == DeliveryProgress(deliveredTo: 1, recipients: 2, grew: false) }
        )
        #expect(try f.store.receipts(message: mine[599].id)?.compactMap(\.deliveredAtMillis) == [9])
    }

    @Test func oneBatchOfAcksForTwoChatsKeepsTheirMessagesApart() async throws {
        // Given alice's first message in two chats, each the chat's local number 1
        let f = try await StoreFixture.make()
        let other = try ChatInvite.create(by: f.alice, title: "other", members: [f.bob.publicKey], createdAtMillis: 0)
        _ = try await f.store.saveChat(other, joinedAtMillis: 0)
        let (here, there) = (try f.message(by: f.alice, seq: 1), try f.message(by: f.alice, seq: 1, in: other.id))
        _ = try await f.store.insert([here, there], receivedAtMillis: 0, ownAuthor: f.alice.publicKey, ownSent: true)

        // When Bob acks both in one batch
        let progress = try await f.store.recordDeliveries(
            [(here.id, f.bob.publicKey), (there.id, f.bob.publicKey)], atMillis: 3)

        // Then each counts its own ack: the chat of two is delivered, the chat of three still waits for Carol
        #expect(progress[here.id] == DeliveryProgress(deliveredTo: 1, recipients: 2, grew: true))
        #expect(progress[there.id] == DeliveryProgress(deliveredTo: 1, recipients: 1, grew: true))
        #expect(try f.store.message(here.id)?.state == .sent)
        #expect(try f.store.message(there.id)?.state == .delivered)
    }

    @Test func ignoresAcksFromOutsidersTheAuthorAndForMessagesNotOurs() async throws {
        let f = try await StoreFixture.make()
        let mine = try f.message(by: f.alice, seq: 1)
        let unknown = try f.message(by: f.alice, seq: 2)
        let bobs = try f.message(by: f.bob, seq: 1)
        try await f.insert(mine, bobs)

        let counts = try await f.store.recordDeliveries(
            [
                (mine.id, try Identity.generate().publicKey), (mine.id, f.alice.publicKey),
                (unknown.id, f.bob.publicKey),
                (bobs.id, f.carol.publicKey),
            ], atMillis: 1)

        #expect(counts.mapValues(\.deliveredTo) == [mine.id: 0, bobs.id: 0])
        #expect(counts.values.allSatisfy { !$0.grew })
        #expect(try f.store.message(mine.id)?.state == .pending)
        #expect(try f.store.message(bobs.id)?.state == .received)
    }

    @Test func anAckOfAPendingOwnMessageProvesItWasSent() async throws {
        let f = try await StoreFixture.make()
        let mine = try f.message(by: f.alice, seq: 1)
        try await f.insert(mine)
        #expect(try f.store.message(mine.id)?.state == .pending)

        _ = try await f.store.recordDeliveries([(mine.id, f.bob.publicKey)], atMillis: 1)
        #expect(try f.store.message(mine.id)?.state == .sent)
        _ = try await f.store.recordDeliveries([(mine.id, f.carol.publicKey)], atMillis: 2)
        #expect(try f.store.message(mine.id)?.state == .delivered)
    }

    @Test func aChatOfOneIsDeliveredAtOnce() async throws {
        let f = try await StoreFixture.make()
        let solo = try ChatInvite.create(by: f.alice, title: "notes", members: [], createdAtMillis: 0)
        _ = try await f.store.saveChat(solo, joinedAtMillis: 0)
        let note = try f.message(by: f.alice, seq: 1, in: solo.id)
        try await f.insertSent(note)

        #expect(try f.store.message(note.id)?.state == .delivered)
        #expect(try f.store.undelivered(author: f.alice.publicKey).isEmpty)
    }

    @Test func listsUndeliveredOwnMessagesWithMissingMembers() async throws {
        // Given three own messages: one fully acked, one acked by Bob, one never sent; and Bob's own
        let f = try await StoreFixture.make()
        let done = try f.message(by: f.alice, seq: 1)
        let half = try f.message(by: f.alice, seq: 2)
        let fresh = try f.message(by: f.alice, seq: 3)
        try await f.insertSent(done, half)
        try await f.insert(fresh, f.message(by: f.bob, seq: 1))
        _ = try await f.store.recordDeliveries(
            [
                (done.id, f.bob.publicKey), (done.id, f.carol.publicKey), (half.id, f.bob.publicKey),
            ], atMillis: 1)

        // When listing what still needs retransmission
        let pending = try f.store.undelivered(author: f.alice.publicKey)

        // Then the incomplete ones come back, in order, naming who has not acknowledged
        #expect(pending.map(\.message) == [half, fresh])
        #expect(pending.map(\.missing) == [[f.carol.publicKey], [f.bob.publicKey, f.carol.publicKey].sorted()])
    }
}
