import ParleyCore
import ParleyCrypto
@testable import ParleyStore
import Testing

/// Acks of own messages are recorded from what the insert kept in memory, or, for messages it did not
/// keep (stored before a restart), from the store: both must end in the same rows and states.
@Suite struct AwaitingAcksTests {
    @Test func acksAfterARestartAreReadFromTheStoreAndAgreeWithThoseKeptInMemory() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("parley.sqlite")

        // Given ten own messages sent, the first five acknowledged by Bob before the node stops
        let f = try await StoreFixture.make(store: try MessageStore.open(path: path))
        let mine = try (1...10).map { try f.message(by: f.alice, seq: UInt64($0)) }
        _ = try await f.store.insert(mine, receivedAtMillis: 1000, ownAuthor: f.alice.publicKey, ownSent: true)
        #expect(f.store.awaitingAcks.lookup(mine.map(\.id)).count == 10)
        _ = try await f.store.recordDeliveries(mine.prefix(5).map { ($0.id, f.bob.publicKey) }, atMillis: 1)

        // When the store is opened again, with nothing in memory, and Bob acks all ten and Carol the first three
        let reopened = try MessageStore.open(path: path)
        #expect(reopened.awaitingAcks.lookup(mine.map(\.id)).isEmpty)
        let acks = mine.map { ($0.id, f.bob.publicKey) } + mine.prefix(3).map { ($0.id, f.carol.publicKey) }
        let progress = try await reopened.recordDeliveries(acks, atMillis: 2)

        // Then Bob's repeats did not grow, the acks from before the restart still count, and states settle
        #expect(
            mine[0..<3].allSatisfy { progress[$0.id] == DeliveryProgress(deliveredTo: 2, recipients: 2, grew: true) })
        #expect(
            mine[3..<5].allSatisfy { progress[$0.id] == DeliveryProgress(deliveredTo: 1, recipients: 2, grew: false) })
        #expect(
            mine[5..<10].allSatisfy { progress[$0.id] == DeliveryProgress(deliveredTo: 1, recipients: 2, grew: true) })
        #expect(
            try mine.map { try reopened.message($0.id)?.state } == Array(repeating: .delivered, count: 3)
                + Array(repeating: .sent, count: 7))

        // And the messages read from the store are kept from then on: Carol's acks settle them the same way
        #expect(reopened.awaitingAcks.lookup(mine.map(\.id)).count == 7)
        let last = try await reopened.recordDeliveries(
            mine.suffix(7).map { ($0.id, f.carol.publicKey) } + [(mine[0].id, f.carol.publicKey)], atMillis: 3)
        #expect(
            mine.suffix(7).allSatisfy { last[$0.id] == DeliveryProgress(deliveredTo: 2, recipients: 2, grew: true) })
        #expect(last[mine[0].id] == DeliveryProgress(deliveredTo: 2, recipients: 2, grew: false))
        #expect(try mine.allSatisfy { try reopened.message($0.id)?.state == .delivered })
        #expect(reopened.awaitingAcks.lookup(mine.map(\.id)).isEmpty)
        #expect(try reopened.receipts(message: mine[9].id)?.compactMap(\.deliveredAtMillis).sorted() == [2, 3])
    }

    @Test func aPendingMessageMovesThroughSentToDeliveredOneBatchAtATime() async throws {
        // Given an own message stored pending (not pushed yet)
        let f = try await StoreFixture.make()
        let mine = try f.message(by: f.alice, seq: 1)
        try await f.insert(mine)
        #expect(f.store.awaitingAcks.lookup([mine.id])[mine.id]?.row.state == .pending)

        // When Bob acks it, then Bob again, then Carol
        let first = try await f.store.recordDeliveries([(mine.id, f.bob.publicKey)], atMillis: 1)
        #expect(try f.store.message(mine.id)?.state == .sent)
        #expect(f.store.awaitingAcks.lookup([mine.id])[mine.id]?.row.state == .sent)
        let repeated = try await f.store.recordDeliveries([(mine.id, f.bob.publicKey)], atMillis: 2)
        let last = try await f.store.recordDeliveries([(mine.id, f.carol.publicKey)], atMillis: 3)

        // Then each step counts what the store holds, and the delivered message is no longer kept
        #expect(first[mine.id] == DeliveryProgress(deliveredTo: 1, recipients: 2, grew: true))
        #expect(repeated[mine.id] == DeliveryProgress(deliveredTo: 1, recipients: 2, grew: false))
        #expect(last[mine.id] == DeliveryProgress(deliveredTo: 2, recipients: 2, grew: true))
        #expect(try f.store.message(mine.id)?.state == .delivered)
        #expect(f.store.awaitingAcks.lookup([mine.id]).isEmpty)
    }

    @Test func othersMessagesAndMessagesDeliveredAtOnceAreNotKept() async throws {
        let f = try await StoreFixture.make()
        let solo = try ChatInvite.create(by: f.alice, title: "notes", members: [], createdAtMillis: 0)
        _ = try await f.store.saveChat(solo, joinedAtMillis: 0)
        let note = try f.message(by: f.alice, seq: 1, in: solo.id)
        let bobs = try f.message(by: f.bob, seq: 1)
        try await f.insertSent(note, bobs)
        #expect(f.store.awaitingAcks.lookup([note.id, bobs.id]).isEmpty)
    }

    @Test func whatARolledBackTransactionKeptIsForgottenWithIt() async throws {
        let f = try await StoreFixture.make()
        let id = try f.message(by: f.alice, seq: 1).id
        let entry = AwaitingAcks.Entry(
            row: DeliveryRow(chatId: f.chat.blob, localNumber: 1, author: f.alice.publicKey, state: .sent),
            acknowledged: [])
        await #expect(throws: StoreError.self) {
            try await f.store.write("a write that fails after keeping an entry") { db in
                f.store.awaitingAcks.update([id: entry], in: db)
                throw CancellationError()
            }
        }
        #expect(f.store.awaitingAcks.lookup([id]).isEmpty)
    }

    @Test func aFullCacheStartsAgainEmptyRatherThanRefusingNewMessages() async throws {
        let f = try await StoreFixture.make()
        let ids = try (0...AwaitingAcks.capacity).map { n in
            try MessageID(
                rawRepresentation: withUnsafeBytes(of: UInt64(n).bigEndian) { Array($0) }
                    + Array(repeating: 0, count: 24))
        }
        let entry = AwaitingAcks.Entry(
            row: DeliveryRow(chatId: f.chat.blob, localNumber: 1, author: f.alice.publicKey, state: .sent),
            acknowledged: [])
        try await f.store.write("keeping one entry too many") { db in
            f.store.awaitingAcks.update(Dictionary(uniqueKeysWithValues: ids.dropLast().map { ($0, entry) }), in: db)
        }
        #expect(f.store.awaitingAcks.lookup(ids).count == AwaitingAcks.capacity)
        try await f.store.write("keeping the newest") { db in f.store.awaitingAcks.update([ids.last!: entry], in: db) }
        #expect(f.store.awaitingAcks.lookup(ids).keys.elementsEqual([ids.last!]))
    }
}
