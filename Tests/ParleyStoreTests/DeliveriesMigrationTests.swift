import Foundation
import ParleyCore
import ParleyCrypto
@testable import ParleyStore
import Testing

/// Acknowledgements are keyed by the message's place in its chat (v9): what a store recorded under
/// the earlier layout, keyed by message id, is carried over.
struct DeliveriesMigrationTests {
    @Test func acksRecordedBeforeTheMigrationStillCountAndKeepTheirTime() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("parley.sqlite")

        // Given alice's two messages on disk, the first acknowledged by bob and carol, the second by bob
        let f = try await StoreFixture.make(store: try MessageStore.open(path: path))
        let (first, second) = (try f.message(by: f.alice, seq: 1), try f.message(by: f.alice, seq: 2))
        _ = try await f.store.insert([first, second], receivedAtMillis: 0, ownAuthor: f.alice.publicKey)
        _ = try await f.store.recordDeliveries(
            [(first.id, f.bob.publicKey), (first.id, f.carol.publicKey), (second.id, f.bob.publicKey)], atMillis: 42)
        #expect(
            try f.store.receipts(message: second.id)?.map(\.delivered)
                == Self.order(f, [f.bob.publicKey: true, f.carol.publicKey: false]))

        // When it is put back as a store from before the migration, its acks keyed by message id, and reopened
        try await f.store.executeUnchecked(
            """
            DROP TABLE deliveries;
            CREATE TABLE deliveries (message_id BLOB NOT NULL REFERENCES messages (id) ON DELETE CASCADE, peer_id BLOB NOT NULL,
                delivered_at_ms INTEGER, PRIMARY KEY (message_id, peer_id));
            INSERT INTO deliveries VALUES (x'\(first.id.hex)', x'\(f.bob.publicKey.hex)', 42),
                (x'\(first.id.hex)', x'\(f.carol.publicKey.hex)', 42),
                (x'\(second.id.hex)', x'\(f.bob.publicKey.hex)', 42);
            DELETE FROM grdb_migrations WHERE identifier = 'v9-deliveries-by-local-number';
            """)
        let migrated = try MessageStore.open(path: path)

        // Then every ack is where it was: counts, who, and when
        #expect(try migrated.message(first.id)?.deliveredTo == 2)
        #expect(try migrated.message(second.id)?.deliveredTo == 1)
        let receipts = try #require(try migrated.receipts(message: second.id))
        #expect(receipts.map(\.delivered) == Self.order(f, [f.bob.publicKey: true, f.carol.publicKey: false]))
        #expect(receipts.compactMap(\.deliveredAtMillis) == [42])
        // And carol's ack of the second message is still taken, and counted once
        let progress = try await migrated.recordDeliveries(
            [(second.id, f.carol.publicKey), (second.id, f.carol.publicKey)], atMillis: 50)
        #expect(progress[second.id]?.deliveredTo == 2)
    }

    @Test func acksOfMessagesWithTheSameLocalNumberInTwoChatsStayApart() async throws {
        // Given alice's first message in two chats (local number 1 in each), only one acknowledged
        let f = try await StoreFixture.make()
        let other = try ChatInvite.create(
            by: f.alice, title: "other", members: [f.bob.publicKey, f.carol.publicKey], createdAtMillis: 0)
        _ = try await f.store.saveChat(other, joinedAtMillis: 0)
        let (here, there) = (try f.message(by: f.alice, seq: 1), try f.message(by: f.alice, seq: 1, in: other.id))
        _ = try await f.store.insert([here, there], receivedAtMillis: 0, ownAuthor: f.alice.publicKey)
        #expect(try f.store.message(here.id)?.localNumber == f.store.message(there.id)?.localNumber)
        _ = try await f.store.recordDeliveries([(here.id, f.bob.publicKey)], atMillis: 7)

        // Then the other chat's message counts no ack, and its receipts show none
        #expect(try f.store.message(here.id)?.deliveredTo == 1)
        #expect(try f.store.message(there.id)?.deliveredTo == 0)
        #expect(try f.store.receipts(message: there.id)?.allSatisfy { !$0.delivered } == true)
    }

    /// The receipts' order (by member id) of the given values.
    static func order(_ f: StoreFixture, _ values: [PeerID: Bool]) -> [Bool] {
        values.sorted { $0.key.rawRepresentation.lexicographicallyPrecedes($1.key.rawRepresentation) }.map(\.value)
    }
}
