import Foundation
import ParleyCore
import ParleyCrypto
import ParleyStore
import Testing

/// A data directory belongs to one identity: a node started on it with another key refuses in one
/// line, before it touches anything, and a directory from before the record adopts its first key.
@Suite(.serialized, .processSuiteLimit)
struct DataDirectoryOwnerProcessTests {
    @Test func aNodeStartedWithAnotherKeyRefusesInOneLineAndChangesNothing() throws {
        // Given alice's node, with a contact and a message in its data directory
        let parley = try ParleyBinary()
        let base = Ports.base()
        let alice = try parley.keygen("alice")
        let bob = try parley.keygen("bob")
        var node = try parley.startNode("alice", port: base, peers: [])
        defer { node.terminateAndWait() }
        try parley.client("alice", ["contacts", "add", "\(parley.workspace)/keys/bob.pub", "--name", "bob"])
        let chat = try parley.client("alice", ["chat", "create", "Diary", "--member", "bob"])
        try parley.client("alice", ["send", chat, "dear diary"])
        let before = try parley.client("alice", ["messages", chat, "--json"])

        // When a node is started on alice's directory with bob's key, while hers runs and after it stopped
        let whileRunning = try startWithBobsKey(parley, port: base + 1)
        let afterwards = try parley.client("alice", ["status", "--json"])
        node.terminateAndWait()
        let whileStopped = try startWithBobsKey(parley, port: base + 1)

        // Then both refuse at once, non-zero, in one line naming both keys
        for refused in [whileRunning, whileStopped] {
            #expect(refused.status != nil && refused.status != 0)
            let lines = refused.stderr.split(separator: "\n")
            #expect(lines.count == 1)
            #expect(refused.stderr.contains("belongs to \(alice.prefix(12))…; it was started with \(bob.prefix(12))…"))
        }
        // And alice's running node kept answering as alice, and her data is as it was
        #expect(afterwards.contains(alice))
        node = try parley.startNode("alice", port: base, peers: [])
        #expect(try parley.client("alice", ["messages", chat, "--json"]) == before)
        #expect(try parley.client("alice", ["contacts", "list"]).contains("bob"))
    }

    @Test func aDirectoryWithoutARecordAdoptsTheFirstKeyStartedOnIt() async throws {
        // Given a data directory whose store has a contact but records no owner (as one from before the record)
        let parley = try ParleyBinary()
        let base = Ports.base()
        let alice = try parley.keygen("alice")
        let bob = try parley.keygen("bob")
        try FileManager.default.createDirectory(atPath: parley.data("alice"), withIntermediateDirectories: true)
        let store = try MessageStore.open(path: parley.data("alice") + "/parley.sqlite")
        try await store.addContact(Contact(peer: try PeerID(rawRepresentation: Hex.decode(bob)), name: "bob"))
        #expect(try store.owner() == nil)

        // When alice's node starts on it, then stops
        let node = try parley.startNode("alice", port: base, peers: [])
        #expect(try parley.client("alice", ["contacts", "list"]).contains("bob"))
        node.terminateAndWait()

        // Then the directory is alice's: bob's key is refused
        #expect(try store.owner()?.hex == alice)
        let refused = try startWithBobsKey(parley, port: base + 1)
        #expect(refused.status != nil && refused.status != 0)
        #expect(refused.stderr.contains("belongs to \(alice.prefix(12))…"))
    }

    /// `parley node` with bob's key on alice's data directory, expected to exit by itself.
    private func startWithBobsKey(_ parley: ParleyBinary, port: Int) throws -> (
        status: Int32?, stdout: String, stderr: String
    ) {
        try parley.runBounded(
            [
                "node", "--key", "\(parley.workspace)/keys/bob.key", "--data", parley.data("alice"), "--listen",
                "127.0.0.1:\(port)",
            ], seconds: 10)
    }
}
