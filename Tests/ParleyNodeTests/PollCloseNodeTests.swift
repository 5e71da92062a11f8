import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Testing

/// A closed poll stays closed: what counts after the creator's close is what the close covers.
struct PollCloseNodeTests {
    typealias Peers = LossyNetworkConvergenceTests

    @Test func aBackdatedVoteSentAfterTheCloseChangesNoTallyAnywhere() async throws {
        // Given alice's yes/no poll in a chat with bob and mallory, bob's down vote, and alice's close
        let bed = try await PumpedPeers.make(count: 3)
        let (alice, bob, mallory) = (bed.peers[0], bed.peers[1], bed.peers[2])
        try await bed.running {
            let invite = try await alice.node.createChat(
                title: "Lunch", members: [bob.identity.publicKey, mallory.identity.publicKey])
            let poll = try await alice.node.createPoll(chat: invite.id, question: "Pizza?")
            try await bed.settle()
            let down = try await bob.node.postVote(chat: invite.id, poll: poll.id, choices: ["down"])
            try await bed.settle()
            #expect(try alice.node.store.message(down.id) != nil)
            let close = try await alice.node.closePoll(chat: invite.id, poll: poll.id)
            try await bed.settle()
            #expect(try bob.node.store.message(close.id) != nil && mallory.node.store.message(close.id) != nil)

            // When mallory, after the close, sends an up vote claiming a clock just below the close's
            let sequence = try mallory.node.store.nextSequence(chat: invite.id, author: mallory.identity.publicKey)
            let backdated = try MessageDraft(
                chat: invite.id, author: mallory.identity.publicKey, sequence: sequence,
                lamport: close.message.lamport - 1,
                timestampMillis: close.message.timestampMillis - 1, tag: .pollVoteUp, content: [],
                references: [MessageReference(id: poll.id, tag: .pollVoteUp)]
            ).sealedAndSigned(in: invite, by: mallory.identity)
            for peer in [alice, bob] {
                await mallory.node.transmit([.message(backdated.encoded)], to: peer.identity.publicKey)
            }
            try await bed.settle()
            #expect(try alice.node.store.message(backdated.id) != nil && bob.node.store.message(backdated.id) != nil)
            _ = try await mallory.node.store.insert(
                [backdated], receivedAtMillis: 0, ownAuthor: mallory.identity.publicKey)

            // Then every node still shows up 0, down 1, closed; mallory's own view says her vote came after the close
            for peer in bed.peers {
                let snapshot = try peer.node.pollSnapshot(chat: invite.id, poll: poll.id)
                #expect(snapshot.tally.map { ($0.up, $0.down) } ?? (-1, -1) == (0, 1))
                #expect(snapshot.phase == .closed)
            }
            #expect(try mallory.node.pollSnapshot(chat: invite.id, poll: poll.id).ownBallot == .afterClose)
            #expect(try bob.node.pollSnapshot(chat: invite.id, poll: poll.id).ownBallot == .counted)
        }
    }

    @Test func theCreatorsNodeClosesAPollAtItsClosingTimeAndOthersWaitForThatClose() async throws {
        // Given alice and bob, each on a clock of their own, and alice's poll closing in one minute
        let network = InMemoryNetwork(delivery: .held)
        let clocks = [ManualClock(), ManualClock()]
        let peers = try clocks.map { clock in
            let identity = try Identity.generate()
            let node = Node(
                configuration: NodeConfiguration(identity: identity), store: try MessageStore.inMemory(),
                transport: network.makeTransport(),
                clock: clock)
            return Peers.Peer(identity: identity, node: node)
        }
        let (alice, bob) = (peers[0], peers[1])
        let pump = NetworkPump(network: network, clocks: clocks, nodes: 2)
        try await Peers.introduce(peers)
        try await Peers.running(peers) {
            let invite = try await alice.node.createChat(title: "Walk", members: [bob.identity.publicKey])
            let spec = PollSpec(
                question: "Where?", options: ["Lake", "Hills"], closesAtMillis: clocks[0].wallMillis + 60_000)
            let poll = try await alice.node.createPoll(chat: invite.id, spec: spec)
            try await pump.settle()
            let lake = try await bob.node.postVote(chat: invite.id, poll: poll.id, choices: ["Lake"])
            try await pump.settle()
            #expect(try alice.node.store.message(lake.id) != nil)

            // When bob's clock passes the closing time before alice's
            clocks[1].advance(by: .seconds(61))
            try await pump.settle()
            // Then bob sees the poll closing, not closed, and his node refuses his vote
            #expect(try bob.node.pollSnapshot(chat: invite.id, poll: poll.id).phase == .closing)
            await #expect(throws: NodeError.self) {
                try await bob.node.postVote(chat: invite.id, poll: poll.id, choices: ["Hills"])
            }

            // When alice's clock passes it too, her node posts the close by itself
            clocks[0].advance(by: .seconds(61))
            try await pump.settle()
            // Then the result is final everywhere, with bob's vote inside the close
            for peer in peers {
                let snapshot = try peer.node.pollSnapshot(chat: invite.id, poll: poll.id)
                #expect(snapshot.phase == .closed)
                let outcome = try #require(snapshot.outcome)
                #expect(outcome.options.map(\.votes) == [1, 0])
                #expect(
                    outcome.closure?.coverage.covers(author: bob.identity.publicKey, sequence: lake.message.sequence)
                        == true)
            }
        }
    }

    @Test func aNewLegacyInviteIsRefusedAndCountedWhileAStoredLegacyChatKeepsWorking() async throws {
        // Given alice and bob, contacts of each other
        let bed = try await PumpedPeers.make(count: 2)
        let (alice, bob) = (bed.peers[0], bed.peers[1])
        try await bed.running {
            // When alice pushes bob an invite to a new chat without keys (kind 0x02)
            let legacy = try ChatInvite.create(
                by: alice.identity, title: "Open", members: [bob.identity.publicKey], createdAtMillis: 0)
            _ = try await alice.node.store.saveChat(legacy, joinedAtMillis: 0)
            await alice.node.transmit([.invite(legacy.encoded)], to: bob.identity.publicKey)
            try await bed.settle()

            // Then bob refuses it, counted under its own reason, and joins nothing: twice, as pushed and
            // as sent again when alice's greeting sync made bob ask for the chat he does not hold
            let rejections = await bob.node.status().rejections
            #expect(rejections["unsealedChat"] == 2, "\(rejections)")
            #expect(try bob.node.store.chat(legacy.id) == nil)

            // When a legacy chat is already stored on bob's node (made before chat keys)
            let old = try ChatInvite.create(
                by: alice.identity, title: "Old", members: [bob.identity.publicKey], createdAtMillis: 0)
            for peer in bed.peers { _ = try await peer.node.store.saveChat(old, joinedAtMillis: 0) }
            // Then it keeps working
            let text = try await alice.node.sendText(chat: old.id, "still here")
            try await bed.settle()
            #expect(try bob.node.store.message(text.id)?.message.text == "still here")
        }
    }
}
