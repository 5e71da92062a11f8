import Foundation
import Testing

/// Delivery state in `parley messages` through three real nodes: an own message is sent ✓ while no
/// one has it, delivered ✓✓ to some then all, and read once the others ran `parley read`.
@Suite(.processSuiteLimit)
struct DeliveryTicksProcessTests {
    struct Message: Decodable {
        let text: String
        let state: String
        let deliveredTo: Int
        let readBy: Int
        let recipients: Int
    }

    /// The listing line of the message whose text ends with `text`, with its ticks.
    func line(_ parley: ParleyBinary, _ name: String, _ chat: String, _ text: String) throws -> String? {
        try parley.client(name, ["messages", chat]).split(separator: "\n").map(String.init).first {
            $0.contains(": \(text)")
        }
    }

    /// Alice's listing, for a failure's message.
    func listing(_ parley: ParleyBinary, _ chat: String) -> String {
        (try? parley.client("alice", ["messages", chat])) ?? ""
    }

    @Test func ownMessagesShowSentThenDeliveredThenReadTicks() throws {
        // Given alice, bob and carol in one chat, every node holding it
        let parley = try ParleyBinary()
        let base = Ports.base()
        var processes = try MultiProcessTests().setUpThreeNodes(parley, base: base)
        defer { processes.forEach { $0.terminateAndWait() } }
        let chat = try parley.client("alice", ["chat", "create", "Ticks", "--member", "bob", "--member", "carol"])
        for name in ["bob", "carol"] {
            try #require(parley.eventually(name, ["messages", chat]) { _ in true }, "\(name) never got the invite")
        }

        // When bob and carol are down and alice writes, her listing shows it sent, reaching no one yet
        processes[1].terminateAndWait()
        processes[2].terminateAndWait()
        let text = "while you were away"
        try parley.client("alice", ["send", chat, text])
        #expect(try line(parley, "alice", chat, text)?.hasSuffix(": \(text) ✓") == true, "\(listing(parley, chat))")

        // When bob comes back, it is delivered to one of two; when carol does too, to both
        processes[1] = try parley.startNode("bob", port: base + 1, peers: [base, base + 2])
        #expect(
            parley.eventually("alice", ["messages", chat]) { $0.contains(": \(text) ✓✓ 1/2") },
            "\(listing(parley, chat))")
        processes[2] = try parley.startNode("carol", port: base + 2, peers: [base, base + 1])
        #expect(
            parley.eventually("alice", ["messages", chat]) { $0.hasSuffix(": \(text) ✓✓") }, "\(listing(parley, chat))")

        // When bob reads the chat, one of two read it; when carol reads it too, it is read
        try parley.client("bob", ["read", chat])
        #expect(
            parley.eventually("alice", ["messages", chat]) { $0.hasSuffix(": \(text) ✓✓ read 1/2") },
            "\(listing(parley, chat))")
        #expect(parley.eventually("carol", ["messages", chat]) { $0.contains(text) })
        try parley.client("carol", ["read", chat])
        #expect(
            parley.eventually("alice", ["messages", chat]) { $0.hasSuffix(": \(text) ✓✓ read") },
            "\(listing(parley, chat))")

        // Then the JSON view carries the counts the ticks come from, and others' copies show no ticks
        let json = try JSONDecoder().decode(
            [Message].self, from: Data(try parley.client("alice", ["messages", chat, "--json"]).utf8))
        let mine = try #require(json.first { $0.text == text })
        #expect(mine.state == "delivered" && mine.deliveredTo == 2 && mine.readBy == 2 && mine.recipients == 2)
        #expect(try line(parley, "bob", chat, text)?.hasSuffix(": \(text)") == true)
    }
}
