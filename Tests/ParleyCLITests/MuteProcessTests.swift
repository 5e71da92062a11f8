import Foundation
import Testing

/// `parley mute CHAT` and `--off`, through the real binary against a running node.
@Suite(.serialized, .processSuiteLimit)
struct MuteProcessTests {
    @Test("parley mute says what it did, the chat list carries it, --off undoes it, an unknown chat exits 3")
    func muteAndUnmute() throws {
        let parley = try ParleyBinary()
        _ = try parley.keygen("alice")
        let node = try parley.startNode("alice", port: Ports.base(), peers: [])
        defer { node.terminateAndWait() }
        let chat = try parley.client("alice", ["chat", "create", "Notes"])

        let muted = try parley.client("alice", ["mute", "Notes"])
        #expect(muted == "muted 'Notes' (id \(chat.prefix(8)))")
        #expect(try parley.client("alice", ["chat", "list", "--json"]).contains("\"muted\":true"))

        let unmuted = try parley.client("alice", ["mute", "Notes", "--off"])
        #expect(unmuted == "unmuted 'Notes' (id \(chat.prefix(8)))")
        #expect(try parley.client("alice", ["chat", "list", "--json"]).contains("\"muted\":false"))

        let unknown = try parley.runBounded(["mute", "Dinner", "--data", parley.data("alice")])
        #expect(unknown.status == 3 && unknown.stderr.contains("no chat titled 'Dinner'"))
    }
}
