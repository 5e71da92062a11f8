import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Synchronization
import Testing

/// Rendezvous through a member (PROTOCOL §12a): two members who know no address for each other get a
/// direct session through a member both reach; an introduction from anyone else, or about anyone
/// else, changes nothing.
struct RendezvousNodeTests {
    @Test func twoMembersWhoKnowNoAddressForEachOtherGetADirectSessionThroughAThird() async throws {
        // Given carol knows alice and bob with their addresses; alice and bob know only carol's, and
        // routers between them all, so that an opening (PROTOCOL §12a) never arrives: the target's
        // handshakes must
        let bed = try await PumpedPeers.make(count: 3, conditions: .init(hops: 3), introduced: false)
        let (carol, alice, bob) = (bed.peers[0], bed.peers[1], bed.peers[2])
        for member in [alice, bob] {
            _ = try await carol.node.addContact(
                Contact(
                    peer: member.identity.publicKey, name: member.identity.publicKey.shortHex,
                    address: member.node.localAddress))
            _ = try await member.node.addContact(
                Contact(peer: carol.identity.publicKey, name: "carol", address: carol.node.localAddress))
        }
        try await bed.running {
            // When carol makes a chat of the three
            let invite = try await carol.node.createChat(
                title: "Meet", members: [alice.identity.publicKey, bob.identity.publicKey])
            try await bed.advance(by: .seconds(10))

            // Then alice and bob get a session with each other, each at the other's real address
            #expect(await alice.node.engine.isConnected(bob.identity.publicKey))
            #expect(await bob.node.engine.isConnected(alice.identity.publicKey))
            #expect(await alice.node.engine.address(of: bob.identity.publicKey) == bob.node.localAddress)
            // and talk directly: a text from alice reaches bob with carol gone
            await carol.node.shutdown()
            let text = try await alice.node.sendText(chat: invite.id, "direct")
            try await bed.settle()
            #expect(try bob.node.store.message(text.id) != nil)
        }
    }

    @Test func anIntroductionNobodyAskedForIsIgnoredAndMovesNoAddress() async throws {
        let bed = try await HostileBed.make()
        try await bed.running {
            // When mallory, a member, introduces alice to a stranger and to bob whom she reaches, as
            // answers alice never asked for and as questions of theirs, pointing each at an address of
            // her choosing
            let stranger = try Identity.generate().publicKey
            let elsewhere = PeerAddress(host: "192.0.2.9", port: 9)
            let known = await bed.alice.node.engine.knownPeers
            await bed.mallory.node.transmit(
                [
                    .meet(peer: stranger, address: elsewhere),
                    .meet(peer: bed.bob.identity.publicKey, address: elsewhere),
                    .meetAsked(peer: stranger, address: elsewhere),
                    .meetAsked(peer: bed.bob.identity.publicKey, address: elsewhere),
                ],
                to: bed.alice.identity.publicKey)
            try await bed.settle()

            // Then alice records no address from it and sends nothing there
            #expect(await bed.alice.node.engine.knownPeers == known)
            #expect(
                bed.taps[bed.alice.identity.publicKey]?.captured.withLock { $0.contains { $0.address == elsewhere } }
                    == false)
        }
    }
}

/// `status` tells apart the messages a node stored from their authors' own nodes and those another
/// member relayed: the share of traffic that goes around a missing session.
struct StoredCountersTests {
    @Test func aMessageFromItsAuthorAndOneRelayedByAnotherMemberAreCountedApart() async throws {
        let bed = try await HostileBed.make()
        try await bed.running {
            let before = await bed.bob.node.status()
            // When alice sends a text herself
            let text = try await bed.alice.node.sendText(chat: bed.invite.id, "from alice")
            try await bed.settle()
            // and mallory hands bob alice's next message, signed by alice, that alice's node never sent him
            let relayed = try MessageDraft(
                chat: bed.invite.id, author: bed.alice.identity.publicKey, sequence: 2, previous: text.message.id,
                lamport: 100,
                timestampMillis: 0, tag: .text, content: Array("relayed".utf8)
            ).sealedAndSigned(in: bed.invite, by: bed.alice.identity)
            await bed.mallory.node.transmit([.message(relayed.encoded)], to: bed.bob.identity.publicKey)
            try await bed.settle()

            // Then bob stored both, and counts one of each
            #expect(try bed.bob.node.store.message(relayed.id) != nil)
            let after = await bed.bob.node.status()
            #expect(after.storedFromAuthors - before.storedFromAuthors == 1)
            #expect(after.storedRelayed - before.storedRelayed == 1)
            // And alice, whose own message comes back from nobody, counts none of her own
            let alice = await bed.alice.node.status()
            #expect(alice.storedRelayed == 0)
        }
    }
}
