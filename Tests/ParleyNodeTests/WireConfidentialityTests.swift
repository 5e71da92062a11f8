import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Synchronization
import Testing

/// Wraps a transport and keeps a copy of every datagram it sends: what a LAN observer captures.
final class CapturingTransport: DatagramTransport {
    let inner: InMemoryTransport
    let captured = Mutex<[Datagram]>([])

    init(_ inner: InMemoryTransport) { self.inner = inner }

    var localAddress: PeerAddress { inner.localAddress }
    var discoveryTarget: PeerAddress? { nil }
    var inbound: DatagramInbox { inner.inbound }
    func send(_ batch: [Datagram]) async {
        captured.withLock { $0 += batch }
        await inner.send(batch)
    }
    func close() async { await inner.close() }
}

struct WireConfidentialityTests {
    @Test func capturedDatagramsContainNoneOfTheMessagePlaintext() async throws {
        // Given two peers, one of whose transports is tapped
        let network = InMemoryNetwork(delivery: .held), clock = ManualClock()
        let alice = try Identity.generate(), bob = try Identity.generate()
        let tap = CapturingTransport(network.makeTransport())
        let aliceNode = Node(
            configuration: NodeConfiguration(identity: alice), store: try MessageStore.inMemory(), transport: tap,
            clock: clock)
        let bobNode = Node(
            configuration: NodeConfiguration(identity: bob), store: try MessageStore.inMemory(),
            transport: network.makeTransport(), clock: clock)
        let pump = NetworkPump(network: network, clock: clock, nodes: 2)
        try await aliceNode.addContact(Contact(peer: bob.publicKey, name: "bob", address: bobNode.localAddress))
        try await bobNode.addContact(Contact(peer: alice.publicKey, name: "alice"))
        let secret = "the launch code is 0000-SWORDFISH"
        let question = "Should we tell Mallory?"

        try await LossyNetworkConvergenceTests.running([
            .init(identity: alice, node: aliceNode), .init(identity: bob, node: bobNode),
        ]) {
            // When alice sends a secret text and a poll, and bob receives them
            let chat = try await aliceNode.createChat(title: "Secret plans", members: [bob.publicKey])
            _ = try await aliceNode.sendText(chat: chat.id, secret)
            _ = try await aliceNode.createPoll(chat: chat.id, question: question)
            try await pump.settle()
            #expect(try bobNode.store.messages(matching: MessageCriteria(chat: chat.id)).count == 2)
        }
        // Then no captured datagram contains the text, the question, the chat title or the tag
        let captured = tap.captured.withLock { $0.map(\.bytes) }
        #expect(captured.count > 3)
        for needle in [secret, question, "Secret plans", "Poll", "Text"] {
            let leaked = captured.contains { contains($0, Array(needle.utf8)) }
            #expect(!leaked, "'\(needle)' travelled in clear")
        }
        // and nor do the peers' identities (only announcements carry an id in clear, and there were none here)
        for datagram in captured {
            #expect(!contains(datagram, alice.publicKey.rawRepresentation))
            #expect(!contains(datagram, bob.publicKey.rawRepresentation))
        }
    }

    private func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { Array(haystack[$0..<$0 + needle.count]) == needle }
    }
}
