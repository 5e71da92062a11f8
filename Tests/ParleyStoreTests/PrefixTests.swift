import ParleyCore
import ParleyCrypto
@testable import ParleyStore
import Testing

@Suite struct PrefixTests {
    /// Seventeen messages: by pigeonhole, at least two share a first hex digit.
    static func manyMessages() async throws -> (StoreFixture, [MessageID]) {
        let f = try await StoreFixture.make()
        var messages: [Message] = []
        for seq in 1...17 as ClosedRange<UInt64> { messages.append(try f.message(by: f.bob, seq: seq)) }
        _ = try await f.store.insert(messages, receivedAtMillis: 0, ownAuthor: f.alice.publicKey)
        return (f, messages.map(\.id))
    }

    @Test func resolvesAUniquePrefixInAnyCase() async throws {
        let (f, ids) = try await Self.manyMessages()
        for id in ids {
            #expect(try f.store.resolveMessage(prefix: String(id.hex.prefix(16)).uppercased(), in: nil) == id)
            #expect(try f.store.resolveMessage(prefix: id.hex, in: f.chat) == id)
        }
    }

    @Test func resolvesOddLengthPrefixes() async throws {
        let (f, ids) = try await Self.manyMessages()
        // Pick an id whose first three digits are unique among the seventeen.
        let id = try #require(ids.first { id in ids.filter { $0.hex.hasPrefix(id.hex.prefix(3)) }.count == 1 })
        #expect(try f.store.resolveMessage(prefix: String(id.hex.prefix(3)), in: nil) == id)
        #expect(try f.store.resolveMessage(prefix: String(id.hex.prefix(9)), in: nil) == id)
    }

    @Test func reportsAmbiguityWithTheCount() async throws {
        let (f, ids) = try await Self.manyMessages()
        let digit = try #require("0123456789abcdef".first { digit in ids.filter { $0.hex.first == digit }.count >= 2 })
        let count = ids.filter { $0.hex.first == digit }.count

        let error = #expect(throws: StoreError.self) { try f.store.resolveMessage(prefix: String(digit), in: nil) }

        #expect(error?.isAmbiguous == true)
        #expect(error?.description == "id prefix '\(digit)' is ambiguous: matches \(count) messages")
    }

    @Test func reportsNoMatch() async throws {
        let (f, ids) = try await Self.manyMessages()
        let absent = try #require(
            (0..<256).map { Hex.encode([UInt8($0)]) }.first { p in !ids.contains { $0.hex.hasPrefix(p) } })

        let error = #expect(throws: StoreError.self) { try f.store.resolveMessage(prefix: absent, in: nil) }

        #expect(error?.isNoMatch == true)
        #expect(error?.description == "no message matches id prefix '\(absent)'")
    }

    @Test func restrictsToAChat() async throws {
        let (f, ids) = try await Self.manyMessages()
        let other = try ChatInvite.create(by: f.alice, title: "other", members: [], createdAtMillis: 0)
        #expect(throws: StoreError.self) { try f.store.resolveMessage(prefix: ids[0].hex, in: other.id) }
    }

    @Test(arguments: ["", "xyz", "12g", "ab cd", String(repeating: "a", count: 65)])
    func rejectsTextThatIsNotAHexPrefix(prefix: String) async throws {
        let store = try MessageStore.inMemory()
        let error = #expect(throws: StoreError.self) { try store.resolveMessage(prefix: prefix, in: nil) }
        #expect(error?.description.contains("is not a hex id prefix") == true)
    }

    @Test func allFsPrefixRunsToTheEnd() async throws {
        let (f, _) = try await Self.manyMessages()
        // No upper bound: must not throw for lack of one, only report what it finds.
        do {
            _ = try f.store.resolveMessage(prefix: "fff", in: nil)
        } catch {
            #expect(error.isNoMatch || error.isAmbiguous)
        }
    }

    @Test func resolvesChats() async throws {
        let f = try await StoreFixture.make()
        #expect(try f.store.resolveChat(prefix: String(f.chat.hex.prefix(5))) == f.chat)
        let other = f.chat.hex.first == "0" ? "1" : "0"
        let error = #expect(throws: StoreError.self) { try f.store.resolveChat(prefix: other) }
        #expect(error?.description == "no chat matches id prefix '\(other)'")
    }
}
