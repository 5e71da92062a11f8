import Foundation
import Testing

/// `parley search` through the real binary: hits as lines with their words marked, JSON, filters,
/// paging, and what a peer could write kept off the terminal.
@Suite(.serialized, .processSuiteLimit)
struct SearchProcessTests {
    struct Page: Decodable {
        struct Hit: Decodable {
            struct Message: Decodable {
                let id: String
                let text: String
            }
            let message: Message
            let matched: String
        }
        let hits: [Hit]
        let next: String?
    }

    @Test func findsMessagesByTheirWordsAcrossChatsNewestFirst() throws {
        // Given alice's node with two chats, a few texts and a poll
        let parley = try ParleyBinary()
        _ = try parley.keygen("alice")
        let node = try parley.startNode("alice", port: Ports.base(), peers: [])
        defer { node.terminateAndWait() }
        let notes = try parley.client("alice", ["chat", "create", "Notes"])
        _ = try parley.client("alice", ["chat", "create", "Trips"])
        try parley.client("alice", ["send", notes, "Lunch on Friday?"])
        try parley.client("alice", ["send", notes, "nothing here"])
        try parley.client("alice", ["send", "Trips", "friday lunch \u{1B}[2J by the lake"])
        try parley.client(
            "alice", ["poll", "create", notes, "Where for lunch?", "--option", "Café", "--option", "Park"])
        func search(_ arguments: [String]) throws -> (status: Int32?, stdout: String, stderr: String) {
            try parley.runBounded(["search"] + arguments + ["--data", parley.data("alice")])
        }

        // When alice searches for two words, in text and as JSON, in one chat, and a page at a time
        let text = try search(["lunch", "fri"])
        let json = try JSONDecoder().decode(Page.self, from: Data(try search(["LUNCH", "--json"]).stdout.utf8))
        let inNotes = try search(["lunch", "--chat", "Notes"])
        let first = try JSONDecoder().decode(
            Page.self, from: Data(try search(["lunch", "--limit", "2", "--json"]).stdout.utf8))
        let second = try search(["lunch", "--limit", "2", "--before", try #require(first.next)])

        // Then the newest hit comes first, its words marked, the escape shown harmless; the poll is found too
        let lines = text.stdout.split(separator: "\n").map(String.init)
        #expect(text.status == 0 && lines.count == 2, "\(text)")
        #expect(lines.first?.hasPrefix("Trips #1 ") == true && lines.first?.contains("«friday» «lunch»") == true)
        #expect(lines.last?.hasPrefix("Notes #1 ") == true && lines.last?.contains("«Lunch» on «Friday»?") == true)
        #expect(!text.stdout.contains("\u{1B}"))
        #expect(json.hits.count == 3 && json.next == nil)
        #expect(inNotes.stdout.split(separator: "\n").count == 2 && !inNotes.stdout.contains("Trips"))
        #expect(first.hits.count == 2)
        #expect(second.stdout.split(separator: "\n").count == 1 && second.stdout.contains("«Lunch» on"))

        // And nothing to look for is refused as invalid (exit 2), nothing found said as such
        let empty = try search(["?!"])
        #expect(empty.status == 2 && empty.stderr.contains("no word to look for"), "\(empty)")
        #expect(try search(["zebra"]).stdout == "(nothing found)\n")
    }
}
