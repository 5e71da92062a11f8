import Foundation
import Testing

/// History paging, content kinds and read receipts across three real `parley` nodes.
@Suite(.serialized)
struct HistoryReceiptsProcessTests {
    struct Message: Decodable {
        let id: String
        let text: String
        let tag: String
        let kind: String
        let links: [String]
        let localNumber: Int64
    }

    struct Receipt: Decodable {
        let name: String?
        let delivered: Bool
        let read: Bool
        let readAtMillis: Int64?
    }

    func messages(_ parley: ParleyBinary, _ name: String, _ arguments: [String]) throws -> [Message] {
        try JSONDecoder().decode(
            [Message].self, from: Data(try parley.client(name, ["messages"] + arguments + ["--json"]).utf8))
    }

    /// The "#N" numbers of a text listing, and its hint lines.
    func page(_ output: String) -> (numbers: [Int], hints: [String]) {
        let lines = output.split(separator: "\n").map(String.init)
        let numbers = lines.compactMap { line in
            line.hasPrefix("#") ? Int(line.dropFirst().prefix { $0.isNumber }) : nil
        }
        return (numbers, lines.filter { $0.hasPrefix("older:") || $0.hasPrefix("newer:") })
    }

    @Test func pagesThroughHistoryShowsKindsAndReportsReads() throws {
        // Given three nodes, and a chat where alice posts 30 messages
        let parley = try ParleyBinary()
        let processes = try MultiProcessTests().setUpThreeNodes(parley, base: Ports.base())
        defer { processes.forEach { $0.terminateAndWait() } }
        let chat = try parley.client("alice", ["chat", "create", "History", "--member", "bob", "--member", "carol"])
        for n in 1...30 { try parley.client("alice", ["send", chat, "message \(n)"]) }

        // When alice pages back from the latest ten, then forward again, with the ids the hints name
        let ids = try messages(parley, "alice", [chat, "--limit", "0"]).map { String($0.id.prefix(12)) }
        #expect(ids.count == 30)
        let latest = page(try parley.client("alice", ["messages", chat, "--limit", "10"]))
        let middle = page(try parley.client("alice", ["messages", chat, "--limit", "10", "--before", ids[20]]))
        let oldest = page(try parley.client("alice", ["messages", chat, "--limit", "10", "--before", ids[10]]))
        let forward = page(try parley.client("alice", ["messages", chat, "--limit", "10", "--after", ids[9]]))
        let last = page(try parley.client("alice", ["messages", chat, "--limit", "10", "--after", ids[19]]))

        // Then each page holds ten, with a hint exactly when there is more that way
        #expect(
            latest.numbers == Array(21...30) && latest.hints == ["older: --before \(ids[20])  (or --limit 0 for all)"])
        #expect(
            middle.numbers == Array(11...20) && middle.hints == ["older: --before \(ids[10])  (or --limit 0 for all)"])
        #expect(oldest.numbers == Array(1...10) && oldest.hints.isEmpty)
        #expect(forward.numbers == Array(11...20) && forward.hints == ["newer: --after \(ids[19])"])
        #expect(last.numbers == Array(21...30) && last.hints.isEmpty)
        let json = try messages(parley, "alice", [chat, "--limit", "10", "--before", ids[20]])
        #expect(json.map(\.localNumber) == Array(11...20) && json.map(\.text) == (11...20).map { "message \($0)" })
        let badCursor = #expect(throws: CommandFailed.self) {
            try parley.client("alice", ["messages", chat, "--before", "soon"])
        }
        #expect(badCursor?.stderr.contains("'soon' is not a hex id prefix") == true, "\(badCursor?.stderr ?? "")")

        // When alice sends a link, custom JSON, bad JSON, and a message with a tag no one shows
        try parley.client("alice", ["send", chat, "docs at https://swift.org/documentation/."])
        let custom = try parley.client("alice", ["send", chat, "--custom", #"{"k":1,"list":[true]}"#])
        let badJSON = #expect(throws: CommandFailed.self) {
            try parley.client("alice", ["send", chat, "--custom", "{oops"])
        }
        #expect(badJSON?.stderr.contains("JSON") == true)
        let sticker = try parley.client("alice", ["send", chat, "quack", "--tag", "Sticker"])

        // Then the link and custom messages are shown with their kinds; the unknown tag only on request
        let shown = try messages(parley, "alice", [chat, "--limit", "3"])
        #expect(shown.map(\.kind) == ["text", "link", "custom"])
        #expect(shown[1].links == ["https://swift.org/documentation/"])
        #expect(shown[2].id == custom && shown[2].text == #"{"k":1,"list":[true]}"#)
        #expect(!(try parley.client("alice", ["messages", chat])).contains("quack"))
        let all = try messages(parley, "alice", [chat, "--all", "--limit", "1"])
        #expect(all.map(\.id) == [sticker] && all.first?.kind == "unknown")
        #expect(try messages(parley, "alice", [chat, "--tag", "Sticker"]).map(\.id) == [sticker])

        // When bob has everything and reads the chat
        #expect(
            parley.eventually("bob", ["messages", chat, "--all", "--json"]) {
                $0.contains(sticker) && $0.contains(custom)
            })
        let read = try parley.client("bob", ["read", chat])
        #expect(read.contains("0 unread"), "\(read)")

        // Then alice's receipts show bob has read her message, and carol has not
        var receipts: [Receipt] = []
        let arrived = parley.eventually("alice", ["receipts", chat, custom, "--json"]) { output in
            receipts = (try? JSONDecoder().decode([Receipt].self, from: Data(output.utf8))) ?? []
            return receipts.first { $0.name == "bob" }?.read == true
        }
        #expect(arrived, "bob's read receipt never reached alice")
        #expect(receipts.map(\.name) == ["bob", "carol"])
        #expect(receipts[0].delivered && receipts[0].readAtMillis != nil)
        #expect(!receipts[1].read)
        let text = try parley.client("alice", ["receipts", chat, custom])
        #expect(text.contains("bob: delivered") && text.contains("carol:") && text.contains("not read"))
        let notMine = #expect(throws: CommandFailed.self) { try parley.client("bob", ["receipts", chat, custom]) }
        #expect(notMine?.stderr.contains("your own messages") == true)
    }
}
