import Foundation
import GRDB
@testable import ParleyStore
import Testing

/// The record types against the schema the migrations build: each names a table, writes only that
/// table's columns, and reads its row back, so a record and the migrations cannot drift apart unseen.
struct RecordTests {
    @Test func everyRecordWritesOnlyItsTablesColumnsAndReadsItsRowBack() async throws {
        // Given a fresh store, and one row of each record type whose keys point at each other
        let store = try MessageStore.inMemory()
        let id = Data(repeating: 1, count: 32)
        let tables = try await store.write("writing one row per record type") { db -> [String] in
            var tables: [String] = []
            func check<Record: FetchableRecord & PersistableRecord>(_ record: Record) throws {
                // When it is inserted
                try record.insert(db)
                // Then it wrote columns of its table only, and its one row decodes
                let columns = Set(try db.columns(in: Record.databaseTableName).map(\.name))
                #expect(Set(try record.databaseDictionary.keys).isSubset(of: columns), "\(Record.databaseTableName)")
                #expect(try Record.fetchAll(db).count == 1, "\(Record.databaseTableName)")
                tables.append(Record.databaseTableName)
            }
            try check(
                ChatRecord(
                    id: id, creator: id, title: "t", createdAtMillis: 0, invite: Data([1]), joinedAtMillis: 0,
                    kind: "group", keyed: true,
                    epoch: 0, epochMessageId: nil))
            try check(ChatMemberRecord(chatId: id, peerId: id))
            try check(ChatEpochRecord(chatId: id, epoch: 0, messageId: nil))
            try check(ChatEpochMemberRecord(chatId: id, epoch: 0, peerId: id))
            try check(ChatKeyRecord(chatId: id, epoch: 0, key: id))
            try check(
                MessageRecord(
                    id: id, chatId: id, author: id, seq: 1, lamport: 0, timestampMillis: 0, tag: "Text",
                    content: Data(), encoded: Data([1]),
                    localNumber: 1, receivedAtMillis: 0, state: .sent, historyLamport: nil))
            try check(LocalDataRecord(messageId: id, key: "k", value: "v"))
            try check(AuthorHeadRecord(chatId: id, author: id, contiguousSeq: 1, maxSeq: 1))
            try check(DeliveryRecord(chatId: id, localNumber: 1, peerId: id))
            try check(ReadMarkerRecord(chatId: id, localNumber: 1))
            try check(
                PendingInviteRecord(
                    chatId: id, invite: Data([1]), sender: id, receivedAtMillis: 0, state: "pending", seq: 1,
                    creator: id))
            try check(ChatAcceptanceRecord(chatId: id, peerId: id))
            try check(ForkProofRecord(chatId: id, author: id, seq: 1, proof: Data([1]), foundAtMillis: 0))
            try check(ContactRecord(peerId: id, name: "n", address: nil))
            try check(StoreOwnerRecord(peerId: id))
            return tables
        }
        #expect(Set(tables).count == tables.count)
    }
}
