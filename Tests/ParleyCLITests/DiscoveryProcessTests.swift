import Foundation
import Testing

/// Real nodes that know nothing of each other's address find one another by multicast announcements.
/// Each runs in its own network namespace, made by the test, so discovery never reaches a real network.
@Suite(.processSuiteLimit)
struct DiscoveryProcessTests {
    @Test(.enabled(if: NetworkNamespaces.canCreate, "needs root and iproute2 to make network namespaces"))
    func twoNodesWithDiscoverAndNoPeerFindEachOtherAndChat() throws {
        // Given two namespaces joined by a veth pair, and a node in each started with --discover only
        let parley = try ParleyBinary()
        let namespaces = try NetworkNamespaces.makePair()
        defer { namespaces.remove() }
        var nodes: [Process] = []
        defer { nodes.forEach { $0.terminateAndWait() } }
        for (name, member) in zip(["alice", "bob"], namespaces.members) {
            _ = try parley.keygen(name)
            // Every namespace has its own ports, so a fixed one cannot collide with a parallel test.
            nodes.append(
                try parley.startNode(
                    name, listen: "\(member.address):7001", options: ["--discover"],
                    launcher: namespaces.launcher(for: member)))
        }
        // The control socket is a file, so the client commands run from the test's own namespace.
        try parley.client("alice", ["contacts", "add", "\(parley.workspace)/keys/bob.pub", "--name", "bob"])
        try parley.client("bob", ["contacts", "add", "\(parley.workspace)/keys/alice.pub", "--name", "alice"])

        // When alice creates a chat with bob, whose address she was never told, and writes
        let chat = try parley.client("alice", ["chat", "create", "Found", "--member", "bob"])
        try parley.client("alice", ["send", chat, "hello over discovery"])

        // Then bob gets it, and his reply reaches alice
        #expect(parley.eventually("bob", ["messages", chat, "--json"]) { $0.contains("hello over discovery") })
        try parley.client("bob", ["send", chat, "found you"])
        #expect(parley.eventually("alice", ["messages", chat, "--json"]) { $0.contains("found you") })
    }
}
