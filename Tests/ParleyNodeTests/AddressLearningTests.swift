import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Testing

/// How a node finds the address of a member it knows only by key (issue 17, item 3): from the
/// answer a `--peer` address gives to its announce.
struct AddressLearningTests {
    @Test func aMemberKnownOnlyThroughAPeerAddressGetsTheInviteOnceItAnswersTheAnnounce() async throws {
        // Given bob's node, and alice's started with `--peer` bob's address; each has the other as a
        // contact without an address
        let bed = try await PumpedPeers.make(count: 2, introduced: false, bootstrap: [0: [1]])
        let (alice, bob) = (bed.peers[0], bed.peers[1])
        _ = try await alice.node.addContact(Contact(peer: bob.identity.publicKey, name: "bob"))
        _ = try await bob.node.addContact(Contact(peer: alice.identity.publicKey, name: "alice"))
        try await bed.running {
            // When alice creates a chat with bob
            let invite = try await alice.node.createChat(title: "Found", members: [bob.identity.publicKey])
            try await bed.advance(by: .seconds(10))

            // Then bob joins it: alice learned bob's id at that address from his answer to her announce
            #expect(try bob.node.chats().contains { $0.invite.id == invite.id })
            #expect(await alice.node.engine.address(of: bob.identity.publicKey) == bob.node.localAddress)
            let text = try await alice.node.sendText(chat: invite.id, "found you")
            try await bed.settle()
            #expect(try bob.node.store.message(text.id) != nil)
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
