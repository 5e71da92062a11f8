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
        try await f.insertSent(mine, theirs)
        _ = try await f.store.recordDeliveries([(mine.id, f.bob.publicKey)], atMillis: 1)
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
        #expect(
            try reopened.messages(matching: MessageCriteria(chat: f.chat, referencing: mine.id)).map(\.message) == [
                theirs
            ])
        #expect(
            try reopened.versionVector(chat: f.chat) == [
                f.alice.publicKey: .contiguous(1), f.bob.publicKey: .contiguous(1),
            ])
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
        #expect(
            error?.description == "store at \(path) was written by a newer Parley (schema v9-future); upgrade Parley")
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

        #expect(
            error?.description
                == "store at \(path) is not a Parley database (not SQLite, or corrupt); refusing to touch it")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
    }

    @Test func aTruncatedStoreIsAnErrorNeverASilentlyShorterHistory() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("parley.sqlite")

        // Given a closed store on disk holding 300 messages, then cut to a third of its size (a bad copy, a full disk)
        var chat: ChatID?
        do {
            let f = try await StoreFixture.make(store: try MessageStore.open(path: path))
            chat = f.chat
            for seq in 1...300 {
                try await f.insert(f.message(by: f.bob, seq: UInt64(seq), text: String(repeating: "x", count: 400)))
            }
        }
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "closing the store checkpoints its WAL")
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: UInt64(size / 3))
        try handle.close()

        // When it is opened and read
        let error = #expect(throws: StoreError.self) {
            let store = try MessageStore.open(path: path)
            _ = try store.messages(matching: MessageCriteria(chat: try #require(chat)))
        }

        // Then the error says the store is damaged, rather than a part of the history going missing
        let text = error?.description ?? ""
        #expect(
            text.contains("not a Parley database") || text.contains("malformed") || text.contains("corrupt"), "\(text)")
    }

    @Test func aTamperedMessageRowIsReportedNotSkipped() async throws {
        // Given a store where one message row's signed encoding was altered behind the store's back
        let f = try await StoreFixture.make()
        let first = try f.message(by: f.bob, seq: 1), second = try f.message(by: f.bob, seq: 2)
        try await f.insert(first, second)
        try await f.store.executeUnchecked("UPDATE messages SET encoded = X'0101' WHERE seq = 2")

        // When the chat is read
        let error = #expect(throws: StoreError.self) { try f.store.messages(matching: MessageCriteria(chat: f.chat)) }

        // Then the read fails and names the damaged message, instead of returning one message fewer
        #expect(
            error?.description.hasPrefix("store is corrupt: message \(second.id.hex.prefix(12))") == true,
            "\(String(describing: error))")
    }

    @Test func reportsAnUnopenablePath() throws {
        let error = #expect(throws: StoreError.self) {
            try MessageStore.open(path: "/nonexistent-dir-for-parley/x.sqlite")
        }
        #expect(error?.description.hasPrefix("cannot open store at /nonexistent-dir-for-parley/x.sqlite") == true)
    }
}

@Suite struct DurabilityTests {
    @Test func fileStoreUsesWALWithNormalSyncAndInfrequentCheckpoints() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try MessageStore.open(path: directory.path("parley.sqlite"))

        #expect(try store.pragma("journal_mode") == "wal")
        #expect(try store.pragma("synchronous") == "1") // NORMAL
        // The writer's own checkpoint is only a backstop: checkpoints run beside it (BackgroundCheckpoint)
        #expect(try store.pragma("wal_autocheckpoint") == "\(BackgroundCheckpoint.writerBackstopPages)")
        #expect(try store.pragma("foreign_keys") == "1")
    }
}
