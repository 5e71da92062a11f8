import Foundation
import ParleyCore
import ParleyCrypto
@testable import ParleyStore
import Testing

@Suite struct FileStoreTests {
    @Test func reopensAndFindsEverything() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("parley.sqlite")

        // Given a store on disk with a chat, messages, a delivery, local data and a contact
        let f = try await StoreFixture.make(store: try MessageStore.open(path: path))
        let mine = try f.message(by: f.alice, seq: 1)
        let theirs = try f.message(by: f.bob, seq: 1, references: [MessageReference(id: mine.id, tag: .text)])
        try await f.insert(mine, theirs)
        try await f.store.markSent([mine.id])
        _ = try await f.store.recordDeliveries([(mine.id, f.bob.publicKey)])
        try await f.store.setLocalData(message: theirs.id, key: "read", value: "1")
        try await f.store.addContact(Contact(peer: f.bob.publicKey, name: "Bob"))

        // When it is opened again from the file
        let reopened = try MessageStore.open(path: path)

        // Then everything is there
        #expect(try reopened.chat(f.chat) == f.invite)
        let all = try reopened.messages(matching: MessageCriteria(chat: f.chat))
        #expect(all.map(\.message) == [mine, theirs])
        #expect(all.map(\.localNumber) == [1, 2])
        #expect(all[0].state == .sent)
        #expect(all[0].deliveredTo == 1)
        #expect(try reopened.messages(matching: MessageCriteria(chat: f.chat, referencing: mine.id)).map(\.message) == [theirs])
        #expect(try reopened.versionVector(chat: f.chat) == [f.alice.publicKey: .contiguous(1), f.bob.publicKey: .contiguous(1)])
        #expect(try reopened.localData(message: theirs.id, key: "read") == "1")
        #expect(try reopened.contact(named: "bob")?.peer == f.bob.publicKey)
        #expect(try reopened.undelivered(author: f.alice.publicKey).map(\.missing) == [[f.carol.publicKey]])
    }

    @Test func refusesAStoreFromANewerParley() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("parley.sqlite")

        // Given a store that a newer version migrated further
        let f = try await StoreFixture.make(store: try MessageStore.open(path: path))
        try await f.insert(f.message(by: f.bob, seq: 1))
        try await f.store.executeUnchecked("INSERT INTO grdb_migrations (identifier) VALUES ('v9-future')")

        // When this version opens it
        let error = #expect(throws: StoreError.self) { try MessageStore.open(path: path) }

        // Then it refuses, says why, and the data is untouched
        #expect(error?.isNewerSchema == true)
        #expect(error?.description == "store at \(path) was written by a newer Parley (schema v9-future); upgrade Parley")
        try await f.store.executeUnchecked("DELETE FROM grdb_migrations WHERE identifier = 'v9-future'")
        #expect(try MessageStore.open(path: path).messages(matching: MessageCriteria(chat: f.chat)).count == 1)
    }

    @Test func refusesAFileThatIsNotSQLite() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("notes.txt")
        let text = String(repeating: "these are not the bytes you are looking for\n", count: 100)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))

        let error = #expect(throws: StoreError.self) { try MessageStore.open(path: path) }

        #expect(error?.description == "store at \(path) is not a Parley database (not SQLite, or corrupt); refusing to touch it")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
    }

    @Test func reportsAnUnopenablePath() throws {
        let error = #expect(throws: StoreError.self) { try MessageStore.open(path: "/nonexistent-dir-for-parley/x.sqlite") }
        #expect(error?.description.hasPrefix("cannot open store at /nonexistent-dir-for-parley/x.sqlite") == true)
    }
}

@Suite struct DurabilityTests {
    @Test func fileStoreUsesWALWithNormalSync() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try MessageStore.open(path: directory.path("parley.sqlite"))

        #expect(try store.pragma("journal_mode") == "wal")
        #expect(try store.pragma("synchronous") == "1") // NORMAL
        #expect(try store.pragma("foreign_keys") == "1")
    }
}
