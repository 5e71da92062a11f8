import Foundation
import ParleyCore
import ParleyCrypto
import ParleyAPI
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Testing

/// The control socket's history requests, on one in-process node.
struct HistoryControlTests {
    @Test func oldMessagesRequestsStillDecode() throws {
        let old = try APIJSON.decode(
            APIRequest.self, from: #"{"messages":{"chat":"Lunch","tag":"Poll","ref":null,"refTag":null,"limit":20}}"#)
        #expect(old == .messages(chat: "Lunch", tag: "Poll", ref: nil, refTag: nil, limit: 20))
        let paged = try APIJSON.decode(
            APIRequest.self, from: #"{"messages":{"chat":"Lunch","limit":5,"before":"9488ce85","shown":true}}"#)
        #expect(
            paged
                == .messages(
                    chat: "Lunch", tag: nil, ref: nil, refTag: nil, limit: 5, before: "9488ce85", after: nil,
                    shown: true))
        #expect(try APIJSON.decode(APIRequest.self, from: #"{"read":{"chat":"Lunch"}}"#) == .read(chat: "Lunch"))
    }

    struct Fixture {
        let service: APIService
        let chat: ChatInvite

        static func make() async throws -> Fixture {
            let identity = try Identity.generate()
            let node = Node(
                configuration: NodeConfiguration(identity: identity), store: try MessageStore.inMemory(),
                transport: InMemoryNetwork().makeTransport())
            let chat = try await node.createChat(title: "Notes", members: [])
            return Fixture(service: APIService(node: node, selfName: "me"), chat: chat)
        }

        func messages(_ request: APIRequest) async throws -> [MessageView] {
            try APIJSON.decode(APIResponse<[MessageView]>.self, from: await service.respond(to: request)).result ?? []
        }

        func error(_ request: APIRequest) async throws -> String? {
            try APIJSON.decode(APIResponse<String>.self, from: await service.respond(to: request)).error
        }
    }

    @Test func pagesHidesUnshownKindsAndLabelsKinds() async throws {
        // Given five texts (one with a link), a custom message, and a message with an unknown tag
        let f = try await Fixture.make()
        let node = f.service.node
        var notes: [StoredMessage] = []
        for n in 1...4 { notes.append(try await node.sendText(chat: f.chat.id, "note \(n)")) }
        _ = try await node.sendText(chat: f.chat.id, "see https://swift.org/documentation.")
        _ = try await node.send(chat: f.chat.id, tag: .custom, content: Array(#"{"k":[1,2]}"#.utf8))
        _ = try await node.send(chat: f.chat.id, tag: try Tag("Sticker"), content: Array("🦆".utf8))

        // When listing shown kinds, paging back and forth through them, and listing everything (an old client's request)
        let shown = try await f.messages(
            .messages(chat: "Notes", tag: nil, ref: nil, refTag: nil, limit: nil, shown: true))
        let fourth = String(notes[3].id.hex.prefix(10))
        let older = try await f.messages(
            .messages(chat: "Notes", tag: nil, ref: nil, refTag: nil, limit: 2, before: fourth, shown: true))
        let newer = try await f.messages(
            .messages(chat: "Notes", tag: nil, ref: nil, refTag: nil, limit: 2, after: fourth, shown: true))
        let all = try await f.messages(.messages(chat: "Notes", tag: nil, ref: nil, refTag: nil, limit: nil))
        let byTag = try await f.messages(.messages(chat: "Notes", tag: "Sticker", ref: nil, refTag: nil, limit: nil))

        // Then the unknown tag is hidden unless asked for, and kinds and links are given
        #expect(shown.map(\.localNumber) == [1, 2, 3, 4, 5, 6])
        #expect(shown.map(\.kind) == ["text", "text", "text", "text", "link", "custom"])
        #expect(shown[4].links == ["https://swift.org/documentation"])
        #expect(shown[5].text == #"{"k":[1,2]}"#)
        #expect(older.map(\.localNumber) == [2, 3])
        #expect(newer.map(\.localNumber) == [5, 6])
        #expect(all.map(\.localNumber) == [1, 2, 3, 4, 5, 6, 7])
        #expect(all.last?.kind == "unknown")
        #expect(byTag.map(\.localNumber) == [7])
    }

    @Test func refusesBadCursorsClearly() async throws {
        let f = try await Fixture.make()
        let first = try await f.service.node.sendText(chat: f.chat.id, "first").id.hex
        let unknown = try await f.error(
            .messages(chat: "Notes", tag: nil, ref: nil, refTag: nil, limit: 5, before: "ffffffff"))
        #expect(unknown?.contains("no message matches id prefix 'ffffffff'") == true)
        let crossed = try await f.error(
            .messages(chat: "Notes", tag: nil, ref: nil, refTag: nil, limit: 5, before: first, after: first))
        #expect(crossed?.contains("no message is between them") == true)
        let upTo = try await f.error(.read(chat: "Notes", upTo: -1))
        #expect(upTo?.contains("--upto") == true)
    }
}
