import Foundation
import ParleyAPI
import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Testing

/// A member proven to have signed two histories (PROTOCOL.md §4.4) as the views give it to the CLI,
/// the full screen and the web page: named in the chat's `forked`, marked in `members`, with the
/// sequence its messages count for nothing from, and the name exactly as the contact has it.
struct ForkViewTests {
    /// A name a peer could choose: escape sequences, a right-to-left override, a line break.
    static let hostileName = "mal\u{1B}[2J\u{202E}lory\n<img src=x onerror=alert(1)>"

    /// Two different messages of `author` for one slot of its chain: a proof of its fork there.
    static func proof(chat: ChatID, author: Identity, sequence: UInt64 = 1) throws -> ForkProof {
        try ForkProof.forged(chat: chat, author: author, sequence: sequence)
    }

    @Test func aForkedMemberIsNamedInTheChatViewAndMarkedInTheMemberList() async throws {
        // Given a chat with mallory, whose contact name is hostile, and a proof of her fork at 1
        let node = try APITestNode.make()
        let service = APIService(node: node, selfName: "me")
        let mallory = try Identity.generate()
        try await node.addContact(Contact(peer: mallory.publicKey, name: Self.hostileName))
        let chat = try await node.createChat(title: "Lunch", members: [mallory.publicKey])
        let before =
            try APIJSON.decode(APIResponse<[ChatView]>.self, from: await service.respond(to: .chatList)).result ?? []
        #expect(before.first?.forked == [])
        #expect(try await node.store.recordFork(try Self.proof(chat: chat.id, author: mallory), atMillis: 0))

        // Then the chat list names her, with her name as given (escaping is the renderer's job)
        let listed = try #require(
            try APIJSON.decode(APIResponse<[ChatView]>.self, from: await service.respond(to: .chatList)).result?.first)
        #expect(listed.forked.map(\.id) == [mallory.publicKey.hex])
        #expect(listed.forked.first?.name == Self.hostileName)
        #expect(listed.forked.first?.fromSequence == 1)

        // And the member list marks her alone
        let answer = await service.respond(to: .members(chat: chat.id.hex))
        let members = try #require(try APIJSON.decode(APIResponse<[MemberPresenceView]>.self, from: answer).result)
        #expect(members.first { $0.id == mallory.publicKey.hex }?.forkedFrom == 1)
        #expect(members.first { $0.you }?.forkedFrom == nil)
        // absent from the JSON of the member who did not fork, not null
        #expect(!answer.contains("\"forkedFrom\":null"))
        #expect(answer.components(separatedBy: "\"forkedFrom\":1").count == 2)
    }
}
