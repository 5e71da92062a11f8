import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Testing

/// Peers that break the rules, over the in-memory network: every case is refused and counted.
struct HostilePeerTests {
    typealias Peers = LossyNetworkConvergenceTests

    @Test func aNonMembersMessageIsRejectedAndCounted() async throws {
        // Given alice's chat with bob, and mallory who is not in it but has a session with alice
        let bed = try await PumpedPeers.make(count: 3)
        let (alice, bob, mallory) = (bed.peers[0], bed.peers[1], bed.peers[2])
        let invite = try await alice.node.createChat(title: "Private", members: [bob.identity.publicKey])
        try await bed.running {
            // When mallory pushes a correctly signed message for that chat straight to alice
            let forged = try MessageDraft(
                chat: invite.id, author: mallory.identity.publicKey, sequence: 1, lamport: 1, timestampMillis: 0,
                tag: .text,
                content: Array("let me in".utf8)
            ).sealedAndSigned(in: invite, by: mallory.identity)
            await mallory.node.transmit([.message(forged.encoded)], to: alice.identity.publicKey)

            // Then alice counts it as notMember and stores nothing of it
            try await bed.settle()
            #expect(await alice.node.status().rejections["notMember"] == 1)
            #expect(try alice.node.store.message(forged.id) == nil)
            // and the chat still works between its members
            let text = try await alice.node.sendText(chat: invite.id, "still private")
            try await bed.settle()
            #expect(try bob.node.store.message(text.message.id) != nil)
        }
    }

    @Test func aStrangersInviteIsRefusedUntilTheCreatorBecomesAContact() async throws {
        // Given mallory knows bob, but bob has no contact for mallory
        let bed = try await PumpedPeers.make(count: 2, introduced: false)
        let (bob, mallory) = (bed.peers[0], bed.peers[1])
        try await mallory.node.addContact(
            Contact(peer: bob.identity.publicKey, name: "bob", address: bob.node.localAddress))
        try await bed.running {
            // When mallory creates a chat with bob in it
            let invite = try await mallory.node.createChat(title: "Free prizes", members: [bob.identity.publicKey])

            // Then bob refuses and counts the invite, and joins nothing
            try await bed.settle()
            #expect(await bob.node.status().rejections["uninvited", default: 0] >= 1)
            #expect(try bob.node.store.chat(invite.id) == nil)

            // When bob adds mallory as a contact and mallory posts
            try await bob.node.addContact(Contact(peer: mallory.identity.publicKey, name: "mallory"))
            let hello = try await mallory.node.sendText(chat: invite.id, "hello")

            // Then bob asks for the invite, joins, and receives the message
            try await bed.settle()
            #expect(try bob.node.store.message(hello.message.id) != nil)
        }
    }

    @Test func aVoteThatArrivesBeforeItsPollCountsOnceThePollArrives() async throws {
        // Given bob's node, and alice's poll and carol's vote on it made elsewhere
        let network = InMemoryNetwork()
        let peers = try Peers.makePeers(network, count: 1)
        let bob = peers[0]
        let alice = try Identity.generate(), carol = try Identity.generate()
        let invite = try ChatInvite.create(
            by: alice, title: "Lunch", members: [bob.identity.publicKey, carol.publicKey], createdAtMillis: 0)
        _ = try await bob.node.store.saveChat(invite, joinedAtMillis: 0)
        let poll = try MessageDraft(
            chat: invite.id, author: alice.publicKey, sequence: 1, lamport: 1, timestampMillis: 0, tag: .poll,
            content: Array("Pizza?".utf8)
        ).signed(by: alice)
        let vote = try MessageDraft(
            chat: invite.id, author: carol.publicKey, sequence: 1, lamport: 2, timestampMillis: 0, tag: .pollVoteDown,
            content: [],
            references: [MessageReference(id: poll.id, tag: .pollVoteDown)]
        ).signed(by: carol)

        // When the vote is stored first: it is kept, though there is no poll to count it for yet
        #expect(
            try await bob.node.store.insert([vote], receivedAtMillis: 0, ownAuthor: bob.identity.publicKey).first?
                .storedMessage != nil)
        #expect(throws: NodeError.self) { try bob.node.pollResults(chat: invite.id, poll: poll.id) }

        // Then once the poll arrives, the vote counts
        _ = try await bob.node.store.insert([poll], receivedAtMillis: 0, ownAuthor: bob.identity.publicKey)
        let tally = try bob.node.pollResults(chat: invite.id, poll: poll.id).tally
        #expect((tally.up, tally.down) == (0, 1))
    }
}
