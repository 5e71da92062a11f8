import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Testing

/// How a node finds the address of a member it knows only by key (issue 17, item 3): from the
/// answer a `--peer` address gives to its announce.
struct AddressLearningTests {
    typealias Peers = LossyNetworkConvergenceTests

    static func node(_ identity: Identity, on network: InMemoryNetwork, peers: [PeerAddress] = []) throws -> Node {
        var configuration = NodeConfiguration(identity: identity, bootstrapPeers: peers)
        configuration.tick = .milliseconds(10)
        return Node(
            configuration: configuration, store: try MessageStore.inMemory(), transport: network.makeTransport())
    }

    @Test func aMemberKnownOnlyThroughAPeerAddressGetsTheInviteOnceItAnswersTheAnnounce() async throws {
        // Given bob's node, and alice's started with `--peer` bob's address; each has the other as a
        // contact without an address
        let network = InMemoryNetwork()
        let (aliceIdentity, bobIdentity) = (try Identity.generate(), try Identity.generate())
        let bob = try Self.node(bobIdentity, on: network)
        let alice = try Self.node(aliceIdentity, on: network, peers: [bob.localAddress])
        _ = try await alice.addContact(Contact(peer: bobIdentity.publicKey, name: "bob"))
        _ = try await bob.addContact(Contact(peer: aliceIdentity.publicKey, name: "alice"))
        try await Peers.running([
            Peers.Peer(identity: aliceIdentity, node: alice), Peers.Peer(identity: bobIdentity, node: bob),
        ]) {
            // When alice creates a chat with bob
            let invite = try await alice.createChat(title: "Found", members: [bobIdentity.publicKey])

            // Then bob joins it: alice learned bob's id at that address from his answer to her announce
            #expect(try await Peers.eventually { try bob.chats().contains { $0.invite.id == invite.id } })
            #expect(await alice.engine.address(of: bobIdentity.publicKey) == bob.localAddress)
            let text = try await alice.sendText(chat: invite.id, "found you")
            #expect(try await Peers.eventually { try bob.store.message(text.id) != nil })
        }
    }

    @Test func anAnnounceIsOfferedAnAnswerAtMostOncePerThirtySeconds() async throws {
        // Given bob's engine, hearing alice's announces from her address
        let engine = NodeEngine(identity: try Identity.generate(), maxWaiting: 10)
        let alice = try Identity.generate()
        let from = try PeerAddress(parsing: "127.0.0.1:7001")
        func announce(at second: Int64) async -> [PeerID] {
            let wall = 1_700_000_000_000 + second * 1_000
            let packet = Announcement.make(identity: alice, wallMillis: wall).encoded()
            return await engine.open([Datagram(address: from, bytes: packet)], now: .seconds(second), wallMillis: wall)
                .answerable.map(\.peer)
        }

        // Then the first announce is offered an answer, the next ones within 30 s are not (so an
        // answer, itself an announce, is answered at most once: the exchange stops after one round)
        #expect(await announce(at: 0) == [alice.publicKey])
        #expect(await announce(at: 5) == [])
        #expect(await announce(at: 29) == [])
        #expect(await announce(at: 30) == [alice.publicKey])
        #expect(await engine.address(of: alice.publicKey) == from)
    }
}
