import Foundation
import Testing

/// Chat kinds, the chat list and member changes, through the real binary on 127.0.0.1.
@Suite(.serialized)
struct ChatMembershipProcessTests {
    struct ChatJSON: Decodable {
        let id: String, kind: String, name: String, epoch: Int, unread: Int
        let lastMessage: Last?
        struct Last: Decodable { let text: String }
        let members: [Member]
        struct Member: Decodable { let name: String? }
    }

    @Test func directAndGroupChatsAreListedBySectionAndARemovedMemberIsLockedOut() throws {
        let parley = try ParleyBinary()
        let processes = try MultiProcessTests().setUpThreeNodes(parley, base: Ports.base())
        defer { processes.forEach { $0.terminateAndWait() } }

        // Given a direct chat with bob and a group with bob and carol, made by alice
        let direct = try parley.client("alice", ["chat", "create", "--direct", "--member", "bob"])
        let group = try parley.client("alice", ["chat", "create", "Team", "--member", "bob", "--member", "carol"])
        #expect(throws: CommandFailed.self) {
            try parley.client("alice", ["chat", "create", "--direct", "--member", "bob", "--member", "carol"])
        }
        try parley.client("alice", ["send", group, "before"])
        #expect(parley.eventually("carol", ["messages", group]) { $0.contains("before") })
        // carol has one unread message, the last one shown; reading the chat clears it
        let carols = try JSONDecoder().decode(
            [ChatJSON].self, from: Data(try parley.client("carol", ["chat", "list", "--json"]).utf8))
        #expect(carols.first { $0.id == group }.map { ($0.unread, $0.lastMessage?.text) } ?? (0, nil) == (1, "before"))
        try parley.client("carol", ["read", group])
        #expect(try parley.client("carol", ["chat", "list"]).contains("unread") == false)

        // Then the list has the direct chat (named after bob) above the groups
        let list = try parley.client("alice", ["chat", "list"])
        let lines = list.split(separator: "\n").map(String.init)
        let directLine = try #require(lines.firstIndex { $0.contains(String(direct.prefix(12))) })
        let groupLine = try #require(lines.firstIndex { $0.contains(String(group.prefix(12))) })
        #expect(lines.first == "Direct:" && lines.contains("Groups:") && directLine < groupLine)
        #expect(lines[directLine].contains("bob"))
        let chats = try JSONDecoder().decode(
            [ChatJSON].self, from: Data(try parley.client("alice", ["chat", "list", "--json"]).utf8))
        #expect(chats.map(\.kind) == ["direct", "group"])

        // When bob tries to change the group, he is refused; alice removes carol
        #expect(throws: CommandFailed.self) { try parley.client("bob", ["chat", "remove", group, "carol"]) }
        #expect(throws: CommandFailed.self) { try parley.client("alice", ["chat", "add", direct, "carol"]) }
        let changed = try parley.client("alice", ["chat", "remove", group, "carol", "--json"])
        let view = try JSONDecoder().decode(ChatJSON.self, from: Data(changed.utf8))
        #expect(view.epoch == 1 && view.members.compactMap(\.name) == ["alice", "bob"])
        try parley.client("alice", ["send", group, "after"])

        // Then bob reads the new message, carol is told she is out and cannot post
        #expect(parley.eventually("bob", ["messages", group]) { $0.contains("after") })
        #expect(parley.eventually("carol", ["chat", "list", "--json"]) { $0.contains("\"epoch\":1") })
        #expect(throws: CommandFailed.self) { try parley.client("carol", ["send", group, "let me back"]) }
        #expect(try !parley.client("carol", ["messages", group]).contains("after"))

        // and alice can add her back: she reads what was said while she was out
        try parley.client("alice", ["chat", "add", group, "carol"])
        #expect(parley.eventually("carol", ["messages", group]) { $0.contains("after") })
        try parley.client("carol", ["send", group, "back"])
        #expect(parley.eventually("bob", ["messages", group]) { $0.contains("back") })
    }
}
