import Foundation
import Testing

/// Edits, deletions, pins, threads and mentions across three real `parley` nodes (PROTOCOL.md §13d).
@Suite(.serialized)
struct AmendmentsProcessTests {
    struct Shown: Decodable, Equatable {
        struct Member: Decodable, Equatable { let id: String }
        let id: String, kind: String, text: String, edits: Int, replyCount: Int
        let deletedBy: Member?, pinnedBy: Member?, mentions: [Member]
    }

    struct Failure: Decodable {
        struct Detail: Decodable { let kind: String }
        let error: Detail
    }

    /// The command's failure, or nil when it succeeded.
    static func failure(_ command: () throws -> String) -> CommandFailed? {
        do { _ = try command() } catch let error as CommandFailed { return error } catch { return nil }
        return nil
    }

    static func shown(_ output: String) -> [Shown]? { try? JSONDecoder().decode([Shown].self, from: Data(output.utf8)) }

    @Test func editsDeletionsPinsAndThreadsShowAlikeOnEveryNodeAndOthersAreRefused() throws {
        // Given three nodes, a chat alice created, and a message each from bob and carol
        let parley = try ParleyBinary()
        let processes = try MultiProcessTests().setUpThreeNodes(parley, base: Ports.base())
        defer { processes.forEach { $0.terminateAndWait() } }
        let chat = try parley.client("alice", ["chat", "create", "Team", "--member", "bob", "--member", "carol"])
        #expect(parley.eventually("carol", ["messages", chat]) { _ in true }, "carol never joined")
        let plan = try parley.client("bob", ["send", chat, "lunch at noon, @carol?"])
        let rumour = try parley.client("carol", ["send", chat, "a rumour"])
        #expect(parley.eventually("alice", ["messages", chat]) { $0.contains("a rumour") && $0.contains("lunch") })

        // When bob edits his, carol replies to it, alice pins it and deletes carol's as the creator
        try parley.client("bob", ["edit", chat, plan, "lunch at one, @carol?"])
        let reply = try parley.client("carol", ["send", chat, "one works", "--ref", plan])
        #expect(parley.eventually("alice", ["messages", chat]) { $0.contains("one works") })
        try parley.client("alice", ["pin", chat, plan])
        try parley.client("carol", ["edit", chat, rumour, "a worse rumour"])
        #expect(parley.eventually("alice", ["messages", chat]) { $0.contains("a worse rumour") })
        try parley.client("alice", ["delete", chat, rumour])

        // Then others' edits and deletions are refused with one line and the invalid exit code
        let refused = try #require(Self.failure { try parley.client("bob", ["edit", chat, reply, "hijacked"]) })
        #expect(refused.status == 2 && refused.stderr.contains("only its author can edit it"))
        #expect(refused.stderr.split(separator: "\n").count == 1)
        #expect(throws: CommandFailed.self) { try parley.client("bob", ["delete", chat, reply]) }
        #expect(throws: CommandFailed.self) { try parley.client("carol", ["pin", chat, plan]) } // already pinned
        #expect(throws: CommandFailed.self) { try parley.client("carol", ["edit", chat, rumour, "back"]) } // deleted

        // and every node shows the same: the edit, the pin, the reply count, the tombstone, the mention
        let mentioned = try #require(Self.shown(try parley.client("carol", ["messages", chat, "--json"])))
        let carolID = try #require(mentioned.first { $0.id == plan }?.mentions.first?.id)
        for name in ["alice", "bob", "carol"] {
            let settled = parley.eventually(name, ["messages", chat, "--json"]) { output in
                guard let shown = Self.shown(output) else { return false }
                let planned = shown.first { $0.id == plan }, rumoured = shown.first { $0.id == rumour }
                return planned?.edits == 1 && planned?.replyCount == 1 && planned?.pinnedBy != nil
                    && planned?.text == "lunch at one, @carol?" && planned?.mentions.map(\.id) == [carolID]
                    && rumoured?.kind == "deleted" && rumoured?.text == "" && rumoured?.deletedBy != nil
            }
            #expect(settled, "\(name) did not show the amended chat")
        }
        // and the deleted message's edit, listed by tag, shows no text either
        let edits = try parley.client("alice", ["messages", chat, "--tag", "Edit", "--json"])
        #expect(edits.contains("\"tag\":\"Edit\"") && !edits.contains("worse"), "\(edits)")
        let pins = try parley.client("bob", ["pins", chat])
        #expect(pins.contains("lunch at one") && pins.split(separator: "\n").count == 1)
        let thread = try parley.client("carol", ["thread", chat, plan])
        #expect(thread.contains("↳") && thread.contains("one works"))
        let versions = try parley.client("alice", ["edits", chat, plan])
        #expect(versions.contains("lunch at noon") && versions.contains("lunch at one"))

        // and a deletion for me hides the message on that node only
        try parley.client("bob", ["delete", chat, reply, "--for-me"])
        #expect(!(try parley.client("bob", ["messages", chat])).contains("one works"))
        #expect(try parley.client("alice", ["messages", chat]).contains("one works"))
        // and an unknown message is not found (exit 3), in JSON under --json
        let unknown = "ffffffffffff"
        let missing = try #require(Self.failure { try parley.client("alice", ["delete", chat, unknown, "--json"]) })
        #expect(missing.status == 3)
        #expect((try? JSONDecoder().decode(Failure.self, from: Data(missing.stderr.utf8)))?.error.kind == "notFound")
    }
}
