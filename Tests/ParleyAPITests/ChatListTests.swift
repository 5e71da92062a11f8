import ParleyAPI
import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Testing

/// The chat list as a person reads it: sections, most recent activity first, one direct chat per person.
struct ChatListTests {
    func list(_ service: APIService) async throws -> [ChatView] {
        try APIJSON.decode(APIResponse<[ChatView]>.self, from: await service.respond(to: .chatList)).result ?? []
    }

    @Test func chatsAreListedByLastActivityWithinTheirSections() async throws {
        // Given three groups and a direct chat, where the oldest group got the latest message
        let clock = ManualClock()
        let node = Node(
            configuration: NodeConfiguration(identity: try Identity.generate()), store: try MessageStore.inMemory(),
            transport: InMemoryNetwork().makeTransport(), clock: clock)
        let service = APIService(node: node, selfName: "me")
        let bob = try Identity.generate().publicKey
        try await node.addContact(Contact(peer: bob, name: "bob"))
        var groups: [ChatInvite] = []
        for title in ["Alpha", "Beta", "Gamma"] {
            groups.append(try await node.createChat(title: title, members: []))
            clock.advance(by: .seconds(1))
        }
        let direct = try await node.createChat(title: "", members: [bob], kind: .direct)
        clock.advance(by: .seconds(1))
        _ = try await node.sendText(chat: groups[0].id, "back to the first")

        // Then the direct chat comes first, then the groups by last activity
        #expect(try await list(service).map(\.name) == ["bob", "Alpha", "Gamma", "Beta"])
        // And asking for a second direct chat with bob gives the first one
        #expect(try await node.createChat(title: "", members: [bob], kind: .direct).id == direct.id)
        #expect(try await list(service).count == 4)
    }

    @Test func anUnknownOrAmbiguousTitleSaysWhatItFound() async throws {
        let node = try APITestNode.make()
        let service = APIService(node: node, selfName: "me")
        let first = try await node.createChat(title: "Lunch", members: [])
        let second = try await node.createChat(title: "lunch", members: [])
        func error(_ chat: String) async throws -> String? {
            try APIJSON.decode(
                APIResponse<String>.self,
                from: await service.respond(to: .messages(chat: chat, tag: nil, ref: nil, refTag: nil, limit: 1))
            ).error
        }
        #expect(try await error("Dinner") == "no chat titled 'Dinner' (see 'parley chat list')")
        let ambiguous = try #require(try await error("LUNCH"))
        #expect(
            ambiguous.contains(String(first.id.hex.prefix(12))) && ambiguous.contains(String(second.id.hex.prefix(12))))
    }
}
