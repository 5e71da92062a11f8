import Foundation
import ParleyAPI
import ParleyCore
import ParleyCrypto
import ParleyNode
import ParleyStore
import ParleyTestKit
import Testing

/// `chatMute`: a chat muted on this node, shown in its views, kept by the store, and sent nowhere.
struct MuteRequestTests {
    func answer<Result: Codable & Sendable>(
        _ service: APIService, _ request: APIRequest, as type: Result.Type
    ) async throws -> APIResponse<Result> {
        try APIJSON.decode(APIResponse<Result>.self, from: await service.respond(to: request))
    }

    @Test("a muted chat says so in its answer and in the chat list, and unmuting clears it")
    func mutingShowsInTheViews() async throws {
        // Given two chats
        let node = try APITestNode.make()
        let service = APIService(node: node, selfName: "me")
        let lunch = try await node.createChat(title: "Lunch", members: [])
        _ = try await node.createChat(title: "Work", members: [])

        // When Lunch is muted
        let muted = try #require(
            try await answer(service, .chatMute(chat: "Lunch", muted: true), as: ChatView.self).result)

        // Then the answer is Lunch's view, muted, and the list marks Lunch alone
        #expect(muted.id == lunch.id.hex && muted.muted)
        var list = try #require(try await answer(service, .chatList, as: [ChatView].self).result)
        #expect(Dictionary(uniqueKeysWithValues: list.map { ($0.name, $0.muted) }) == ["Lunch": true, "Work": false])

        // And muting again changes nothing; unmuting clears it
        #expect(
            try await answer(service, .chatMute(chat: "Lunch", muted: true), as: ChatView.self).result?.muted == true)
        let unmuted = try await answer(service, .chatMute(chat: lunch.id.hex, muted: false), as: ChatView.self)
        #expect(unmuted.result?.muted == false)
        list = try #require(try await answer(service, .chatList, as: [ChatView].self).result)
        #expect(list.allSatisfy { !$0.muted })
    }

    @Test("muting a chat the node does not hold is notFound, and the request needs both values")
    func mutingAnUnknownChatIsRefused() async throws {
        let service = APIService(node: try APITestNode.make(), selfName: "me")
        let refused = try await answer(service, .chatMute(chat: "Dinner", muted: true), as: ChatView.self)
        #expect(refused.kind == .notFound && refused.result == nil)
        guard case .failure = APIService.parse(#"{"chatMute":{"chat":"Lunch"}}"#) else {
            Issue.record("a chatMute without muted was parsed")
            return
        }
        guard case .success(.chatMute("Lunch", true)) = APIService.parse(#"{"chatMute":{"chat":"Lunch","muted":true}}"#)
        else {
            Issue.record("a chatMute line did not parse")
            return
        }
    }

    @Test("a mute is kept by the store across a restart, and nothing is sent for it")
    func aMuteOutlivesARestartAndSendsNothing() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "parley-mute-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("parley.sqlite").path
        let identity = try Identity.generate()
        let network = InMemoryNetwork()
        let bob = try Identity.generate().publicKey
        let chat: ChatID
        do {
            let node = Node(
                configuration: NodeConfiguration(identity: identity), store: try MessageStore.open(path: path),
                transport: network.makeTransport())
            chat = try await node.createChat(title: "Lunch", members: [bob]).id
            let sentBefore = await node.status().datagramsOut
            _ = try await APIService(node: node, selfName: "me").respond(to: .chatMute(chat: "Lunch", muted: true))
            #expect(await node.status().datagramsOut == sentBefore)
        }
        let reopened = Node(
            configuration: NodeConfiguration(identity: identity), store: try MessageStore.open(path: path),
            transport: network.makeTransport())
        #expect(try reopened.mutedChats() == [chat])
    }
}
