import ParleyAPI
import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Testing

/// A member nothing can reach (no address for it, none for anyone who could carry the chat to it) is
/// named on `chatCreate`, `send` and the chat list, and stops being named once an address is known.
struct NoRouteTests {
    let node: Node
    let service: APIService
    let dave: PeerID
    let bob: PeerID

    init() async throws {
        dave = try Identity.generate().publicKey
        bob = try Identity.generate().publicKey
        node = try APITestNode.make()
        service = APIService(node: node, selfName: "me")
        try await node.addContact(Contact(peer: dave, name: "dave"))
    }

    func create(_ members: [String]) async throws -> ChatView {
        try #require(
            try APIJSON.decode(
                APIResponse<ChatView>.self,
                from: await service.respond(to: .chatCreate(title: "Lunch", members: members))
            ).result)
    }

    @Test func aContactWithoutAnAddressIsNamedOnCreateSendAndTheList() async throws {
        // Given dave, a contact added without an address
        let chat = try await create(["dave"])
        #expect(chat.noRoute.map(\.id) == [dave.hex] && chat.noRoute.map(\.name) == ["dave"])

        // Then sending says so too, and so does the chat list
        let sent = try #require(
            try APIJSON.decode(
                APIResponse<MessageView>.self,
                from: await service.respond(to: .send(chat: chat.id, text: "hi", tag: nil, refs: []))
            ).result)
        #expect(sent.noRoute?.map(\.id) == [dave.hex])
        let listed = try #require(
            try APIJSON.decode(APIResponse<[ChatView]>.self, from: await service.respond(to: .chatList)).result)
        #expect(listed.map { $0.noRoute.map(\.id) } == [[dave.hex]])

        // When an address for dave is learned (an announce, a handshake, a contact's --addr)
        await node.learnAddress(try PeerAddress(parsing: "127.0.0.1:7001"), for: dave)

        // Then nobody is named any more
        let after = try #require(
            try APIJSON.decode(
                APIResponse<MessageView>.self,
                from: await service.respond(to: .send(chat: chat.id, text: "again", tag: nil, refs: []))
            ).result)
        #expect(after.noRoute?.isEmpty == true)
    }

    @Test func aMemberWithAnAddressIsARouteToTheOthers() async throws {
        // Given bob, with an address, and dave, without one, in one chat
        try await node.addContact(Contact(peer: bob, name: "bob", address: try PeerAddress(parsing: "127.0.0.1:7002")))
        let chat = try await create(["bob", "dave"])

        // Then dave is not named: bob's sync carries the chat to him, or bob introduces him (§12a)
        #expect(chat.noRoute.isEmpty)
    }

    @Test func theRuleNamesEveryOtherMemberOnlyWhenNoneHasAnAddress() throws {
        let me = try Identity.generate().publicKey
        #expect(Node.withoutRoute(members: [me, bob, dave], me: me, addressed: []) == [bob, dave])
        #expect(Node.withoutRoute(members: [me, bob, dave], me: me, addressed: [bob]) == [])
        #expect(Node.withoutRoute(members: [me], me: me, addressed: []) == [])
    }
}
