import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Testing

/// A member that reaches an author only through another member gets the author's new messages pushed
/// on by that member at once (PROTOCOL §12a, messages through the introducer), not at its next sync round.
struct RelayPushTests {
    /// Alice and bob cannot reach each other (each behind a NAT that lets nothing in), both reach carol;
    /// each knows the other two as contacts, only carol with an address; sync rounds 30 s apart, so a
    /// message that waits for one cannot arrive within the half second the test allows.
    private static func bed() async throws -> (
        PumpedPeers, carol: PumpedPeers.Peer, alice: PumpedPeers.Peer, bob: PumpedPeers.Peer
    ) {
        let bed = try await PumpedPeers.make(count: 3, introduced: false) { _, configuration in
            configuration.syncInterval = .seconds(30)
        }
        let (carol, alice, bob) = (bed.peers[0], bed.peers[1], bed.peers[2])
        for (name, peer, other) in [("alice", alice, bob), ("bob", bob, alice)] {
            _ = try await peer.node.addContact(
                Contact(peer: carol.identity.publicKey, name: "carol", address: carol.node.localAddress))
            _ = try await peer.node.addContact(
                Contact(peer: other.identity.publicKey, name: name == "alice" ? "bob" : "alice"))
            _ = try await carol.node.addContact(
                Contact(peer: peer.identity.publicKey, name: name, address: peer.node.localAddress))
        }
        bed.network.conditions.partition = [[alice.node.localAddress], [bob.node.localAddress]]
        return (bed, carol, alice, bob)
    }

    @Test func aPollFromAMemberBehindAnotherNATReachesTheRelayedMemberWithinHalfASecond() async throws {
        let (bed, carol, alice, bob) = try await Self.bed()
        try await bed.running {
            // Given alice made a chat of the three at once, and bob joined it through carol
            let invite = try await alice.node.createChat(
                title: "Lunch", members: [carol.identity.publicKey, bob.identity.publicKey])
            try await bed.advance(by: .seconds(61))
            #expect(try bob.node.store.membership(of: invite.id)?.members.contains(bob.identity.publicKey) == true)
            let before = await carol.node.status()

            // When alice posts a poll, the next sync round still 29 s away
            let poll = try await alice.node.createPoll(chat: invite.id, question: "Pizza?")
            try await bed.advance(by: .milliseconds(500))

            // Then bob holds it, pushed on by carol, with still no session to alice
            #expect(try bob.node.store.message(poll.id) != nil)
            #expect(await !bob.node.engine.isConnected(alice.identity.publicKey))
            #expect(await carol.node.status().relayedOnward > before.relayedOnward)
            #expect(await bob.node.status().storedRelayed >= 1)
            // and his vote goes back to alice the same way: one tally on all three
            _ = try await bob.node.postVote(chat: invite.id, poll: poll.id, choices: ["up"])
            try await bed.advance(by: .milliseconds(500))
            for peer in [alice, bob, carol] {
                let tally = try peer.node.pollSnapshot(chat: invite.id, poll: poll.id).tally
                #expect(tally.map { ($0.up, $0.down) } ?? (-1, -1) == (1, 0))
            }
        }
    }

    @Test func aMemberWithADirectSessionIsNotPushedAnything() async throws {
        // Given three members who all reach each other
        let bed = try await PumpedPeers.make(count: 3)
        let (carol, alice) = (bed.peers[0], bed.peers[1])
        try await bed.running {
            let invite = try await alice.node.createChat(
                title: "Open", members: [carol.identity.publicKey, bed.peers[2].identity.publicKey])
            try await bed.advance(by: .seconds(20))

            // When alice posts texts
            for index in 0..<5 { _ = try await alice.node.sendText(chat: invite.id, "text \(index)") }
            try await bed.advance(by: .seconds(5))

            // Then carol pushed none of them on: nobody asked her to introduce alice
            #expect(await carol.node.status().relayedOnward == 0)
        }
    }
}
