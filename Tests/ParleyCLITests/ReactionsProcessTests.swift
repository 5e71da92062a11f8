import Foundation
import Testing

/// Reactions across three real `parley` nodes: adds, a unique replacement, an unreact, and
/// identical `reactions --json` everywhere.
@Suite(.serialized)
struct ReactionsProcessTests {
    struct Listing: Decodable, Equatable {
        struct Group: Decodable, Equatable { let type: String, count: Int, score: Int, firstAt: Int64, lastAt: Int64 }
        struct Item: Decodable, Equatable { let type: String, authorId: String, score: Int, at: Int64 }
        let groups: [Group]
        let reactions: [Item]
    }

    struct Mine: Decodable {
        struct Group: Decodable { let type: String, mine: Bool }
        let groups: [Group]
        let next: String?
    }

    static func decode<T: Decodable>(_ type: T.Type, _ output: String) -> T? {
        try? JSONDecoder().decode(type, from: Data(output.utf8))
    }

    @Test func reactionsAgreeOnEveryNodeWithUniqueAndUnreact() throws {
        // Given three nodes and a message from alice
        let parley = try ParleyBinary()
        let processes = try MultiProcessTests().setUpThreeNodes(parley, base: Ports.base())
        defer { processes.forEach { $0.terminateAndWait() } }
        let chat = try parley.client("alice", ["chat", "create", "Release", "--member", "bob", "--member", "carol"])
        let message = try parley.client("alice", ["send", chat, "ship 2.0 today?"])
        for name in ["bob", "carol"] {
            #expect(
                parley.eventually(name, ["reactions", chat, message]) { _ in true }, "\(name) never got the message")
        }

        // When they react, bob replaces his reactions with a unique one, and carol withdraws one
        try parley.client("alice", ["react", chat, message, "👍"])
        try parley.client("alice", ["react", chat, message, "🚀", "--score", "5"])
        try parley.client("bob", ["react", chat, message, "👍", "--score", "3"])
        try parley.client("bob", ["react", chat, message, "🎉"])
        try parley.client("carol", ["react", chat, message, "❤️"])
        try parley.client("carol", ["react", chat, message, "lgtm"])
        // The same again.
        #expect(throws: CommandFailed.self) { try parley.client("carol", ["react", chat, message, "lgtm"]) }
        // Never chosen.
        #expect(throws: CommandFailed.self) { try parley.client("carol", ["unreact", chat, message, "🎉"]) }
        #expect(throws: CommandFailed.self) {
            try parley.client("carol", ["react", chat, message, "x", "--score", "2000000"])
        }
        try parley.client("bob", ["react", chat, message, "🚀", "--unique"])
        try parley.client("carol", ["unreact", chat, message, "❤️"])

        // Then every node shows 🚀 ×2 (score 6), then lgtm and 👍 (one each, by type bytes)
        let expected = ["🚀 2 6", "lgtm 1 1", "👍 1 1"]
        for name in ["alice", "bob", "carol"] {
            let settled = parley.eventually(name, ["reactions", chat, message, "--json"]) { output in
                Self.decode(Listing.self, output)?.groups.map { "\($0.type) \($0.count) \($0.score)" } == expected
            }
            #expect(settled, "\(name) did not reach \(expected)")
        }
        let listings = try ["alice", "bob", "carol"].map {
            try #require(Self.decode(Listing.self, try parley.client($0, ["reactions", chat, message, "--json"])))
        }
        #expect(listings[0] == listings[1] && listings[1] == listings[2])
        #expect(listings[0].reactions.count == 4)
        // and `mine` is each user's own view
        let alice = try #require(
            Self.decode(Mine.self, try parley.client("alice", ["reactions", chat, message, "--json"])))
        #expect(alice.groups.map(\.mine) == [true, false, true])
        let carol = try #require(
            Self.decode(Mine.self, try parley.client("carol", ["reactions", chat, message, "--json"])))
        #expect(carol.groups.map(\.mine) == [false, true, false])
        // and the list pages and filters
        let page = try #require(
            Self.decode(Mine.self, try parley.client("bob", ["reactions", chat, message, "--limit", "3", "--json"])))
        let cursor = try #require(page.next)
        let rest = try parley.client("bob", ["reactions", chat, message, "--limit", "3", "--before", cursor, "--json"])
        #expect(Self.decode(Listing.self, rest)?.reactions.count == 1)
        let byAlice = try parley.client(
            "carol", ["reactions", chat, message, "--author", "alice", "--type", "🚀", "--json"])
        #expect(Self.decode(Listing.self, byAlice)?.reactions.map(\.score) == [5])
        let text = try parley.client("alice", ["reactions", chat, message, "--sort", "score", "--limit", "1"])
        #expect(text.contains("more: --before "))
    }

    @Test(.processSuiteLimit) func openShowsReactionGroupsLiveAndReactsFromTheKeyboard() throws {
        // Given bob's `parley open` session and a message from alice
        let session = try OpenSessionTests.Session.start()
        defer { session.stop() }
        let (parley, chat, open) = (session.parley, session.chat, session.open)
        let message = try parley.client("alice", ["send", chat, "react to me"])
        #expect(open.waitFor { $0.contains("alice: react to me") }, "\(open.transcript)")

        // When alice reacts, bob sees the groups; when bob types /react and /unreact, they reach alice
        try parley.client("alice", ["react", chat, message, "👀"])
        #expect(open.waitFor { $0.contains("reactions on \(message.prefix(12)): 👀 1") }, "\(open.transcript)")
        try open.type("/react \(message.prefix(10)) 👀")
        #expect(open.waitFor { $0.contains("👀 2*") }, "\(open.transcript)")
        #expect(parley.eventually("alice", ["reactions", chat, message, "--json"]) { $0.contains(#""count":2"#) })
        try open.type("/unreact \(message.prefix(10)) 👀")
        #expect(
            open.waitFor { $0.components(separatedBy: "reactions on ").last?.contains("👀 1\n") == true },
            "\(open.transcript)")
        try open.type("/react \(message.prefix(10))")
        #expect(open.waitFor { $0.contains("error: name the message: /react MESSAGE TYPE") }, "\(open.transcript)")
    }
}
