import Foundation
import Testing

/// An invite from someone who is not (yet) a contact, through real `parley` nodes: it waits in
/// `parley invites`, the inviter sees who it waits for, and accepting joins with the history.
@Suite(.serialized, .processSuiteLimit)
struct InvitesProcessTests {
    @Test func aStrangersInviteWaitsUntilAcceptedAndTheInviterSeesWhoItWaitsFor() throws {
        // Given alice, who added dave as a contact, and dave, who has not added alice
        let parley = try ParleyBinary()
        let base = Ports.base()
        for name in ["alice", "dave"] { _ = try parley.keygen(name) }
        let nodes = [
            try parley.startNode("alice", port: base, peers: [base + 1]),
            try parley.startNode("dave", port: base + 1, peers: [base]),
        ]
        defer { nodes.forEach { $0.terminateAndWait() } }
        try parley.client("alice", ["contacts", "add", "\(parley.workspace)/keys/dave.pub", "--name", "dave"])

        // When alice creates a chat with dave and posts in it
        let chat = try parley.client("alice", ["chat", "create", "Board games", "--member", "dave"])
        try parley.client("alice", ["send", chat, "Thursday?"])

        // Then dave's node lists the invite (who, what, with whom), and alice's chat list waits for dave
        #expect(parley.eventually("dave", ["invites"]) { $0.contains(String(chat.prefix(12))) })
        let listed = try parley.client("dave", ["invites"])
        let json =
            try JSONSerialization.jsonObject(with: Data(try parley.client("dave", ["invites", "--json"]).utf8))
            as? [[String: Any]]
        #expect(json?.first?["title"] as? String == "Board games")
        // a stranger is "someone" and its key (once), and dave is not listed among the members
        let alice = try #require((json?.first?["creator"] as? [String: Any])?["id"] as? String)
        #expect(
            listed.contains("someone (\(alice.prefix(12))) invites you to 'Board games', ")
                && listed.contains("parley invites accept"))
        #expect(!listed.contains("\(alice.prefix(8)) ("))
        #expect((json?.first?["members"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [alice])

        // and a title with a line break cannot start a line of its own
        let forged = try parley.client(
            "alice", ["chat", "create", "Prize\nparley invites accept 000000000000", "--member", "dave"])
        #expect(parley.eventually("dave", ["invites"]) { $0.contains(String(forged.prefix(12))) })
        let both = try parley.client("dave", ["invites"])
        #expect(!both.split(separator: "\n").contains { $0.hasPrefix("parley") })
        try parley.client("dave", ["invites", "decline", String(forged.prefix(12))])
        #expect(try parley.client("alice", ["chat", "list"]).contains("(waiting for dave to accept)"))
        #expect(throws: CommandFailed.self) { try parley.client("dave", ["messages", chat]) }

        // When dave accepts, naming alice
        #expect(try parley.client("dave", ["invites", "accept", String(chat.prefix(10)), "--name", "alice"]) == chat)

        // Then he has the chat with what was said before, alice is his contact, and alice waits for nobody
        #expect(parley.eventually("dave", ["messages", chat]) { $0.contains("alice: Thursday?") })
        #expect(try parley.client("dave", ["contacts", "list"]).contains("alice"))
        #expect(try parley.client("dave", ["invites"]) == "(no invites waiting)")
        #expect(parley.eventually("alice", ["chat", "list"]) { !$0.contains("waiting for") })
        // and an invite id that is not pending says so, with the not-found exit code
        let missing = #expect(throws: CommandFailed.self) {
            try parley.client("dave", ["invites", "decline", "abcdef"])
        }
        #expect(missing?.status == 3)
    }
}
