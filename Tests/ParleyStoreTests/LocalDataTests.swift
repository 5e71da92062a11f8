import ParleyCore
import ParleyCrypto
@testable import ParleyStore
import Testing

@Suite struct LocalDataTests {
    @Test func setsReadsAndDeletesValues() async throws {
        let f = try await StoreFixture.make()
        let message = try f.message(by: f.bob, seq: 1)
        try await f.insert(message)

        try await f.store.setLocalData(message: message.id, key: "read", value: "yes")
        try await f.store.setLocalData(message: message.id, key: "star", value: "1")
        try await f.store.setLocalData(message: message.id, key: "read", value: "no")
        #expect(try f.store.localData(message: message.id, key: "read") == "no")
        #expect(try f.store.allLocalData(message: message.id) == ["read": "no", "star": "1"])

        try await f.store.setLocalData(message: message.id, key: "read", value: nil)
        #expect(try f.store.localData(message: message.id, key: "read") == nil)
        #expect(try f.store.allLocalData(message: message.id) == ["star": "1"])
    }

    @Test func deletingAValueReturnsWhatItWasAndNothingTheSecondTime() async throws {
        // Given a message with a note and a star
        let f = try await StoreFixture.make()
        let message = try f.message(by: f.bob, seq: 1)
        try await f.insert(message)
        try await f.store.setLocalData(message: message.id, key: "note", value: "vegan")
        try await f.store.setLocalData(message: message.id, key: "star", value: "1")

        // When the note is deleted twice
        let first = try await f.store.deleteLocalData(message: message.id, key: "note")
        let second = try await f.store.deleteLocalData(message: message.id, key: "note")

        // Then the first says what it removed, the second that there was nothing, and the star stays
        #expect(first == "vegan")
        #expect(second == nil)
        #expect(try f.store.allLocalData(message: message.id) == ["star": "1"])
    }

    @Test func isNotPartOfTheMessage() async throws {
        // Given a message with local data
        let f = try await StoreFixture.make()
        let message = try f.message(by: f.bob, seq: 1)
        try await f.insert(message)
        try await f.store.setLocalData(message: message.id, key: "note", value: "secret")

        // Then the stored message, its wire bytes and its id are exactly what was signed
        let stored = try #require(try f.store.message(message.id))
        #expect(stored.message == message)
        #expect(stored.message.encoded == message.encoded)
        #expect(!String(decoding: stored.message.encoded, as: UTF8.self).contains("secret"))
        #expect(
            try f.store.encodings(chat: f.chat, author: f.bob.publicKey, in: [1...10], limit: 10).map(\.encoded) == [
                message.encoded
            ])
    }

    @Test func requiresAStoredMessage() async throws {
        let f = try await StoreFixture.make()
        let unknown = try f.message(by: f.bob, seq: 1)
        let error = await #expect(throws: StoreError.self) {
            try await f.store.setLocalData(message: unknown.id, key: "k", value: "v")
        }
        #expect(error?.description == "no message \(unknown.id.hex) in the store")
    }
}
