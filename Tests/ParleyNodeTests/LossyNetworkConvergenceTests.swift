import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Testing

/// Three in-process peers on a network that drops, duplicates and reorders datagrams.
struct LossyNetworkConvergenceTests {
    struct Peer {
        let identity: Identity
        let node: Node
    }

    static func makePeers(_ network: InMemoryNetwork, count: Int) throws -> [Peer] {
        try (0..<count).map { _ in
            let identity = try Identity.generate()
            var configuration = NodeConfiguration(identity: identity)
            configuration.tick = .milliseconds(10)
            configuration.syncInterval = .milliseconds(150)
            let node = Node(
                configuration: configuration, store: try MessageStore.inMemory(), transport: network.makeTransport())
            return Peer(identity: identity, node: node)
        }
    }

    /// Makes every peer a contact of every other, with its address.
    static func introduce(_ peers: [Peer]) async throws {
        for peer in peers {
            for other in peers where other.identity.publicKey != peer.identity.publicKey {
                try await peer.node.addContact(
                    Contact(
                        peer: other.identity.publicKey, name: other.identity.publicKey.shortHex,
                        address: other.node.localAddress))
            }
        }
    }

    /// Runs the peers while `body` works, then stops them.
    static func running(_ peers: [Peer], _ body: @Sendable () async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for peer in peers { group.addTask { try await peer.node.run() } }
            do { try await body() } catch {
                group.cancelAll()
                throw error
            }
            group.cancelAll()
        }
    }

    @Test func threePeersConvergeOnMessagesAndTalliesDespiteLossAndReordering() async throws {
        // Given a network losing 20% of datagrams, duplicating 5% and reordering
        let bed = try await PumpedPeers.make(
            count: 3, conditions: .init(lossRate: 0.2, duplicateRate: 0.05, reorder: true), seed: 7)
        let peers = bed.peers
        try await bed.running {
            // When alice creates a chat and a poll, everyone chats and votes, bob twice
            let invite = try await peers[0].node.createChat(
                title: "Lunch", members: peers.dropFirst().map(\.identity.publicKey))
            let poll = try await peers[0].node.createPoll(chat: invite.id, question: "Pizza?")
            try await bed.advance(by: .seconds(10)) // retransmits and sync repair what the network lost
            for (index, peer) in peers.enumerated() {
                #expect(try peer.node.store.message(poll.message.id) != nil, "peer \(index) never received the poll")
                for n in 0..<20 { _ = try await peer.node.sendText(chat: invite.id, "message \(n) from \(index)") }
            }
            _ = try await peers[0].node.postVote(chat: invite.id, poll: poll.message.id, choices: ["up"])
            _ = try await peers[1].node.postVote(chat: invite.id, poll: poll.message.id, choices: ["up"])
            _ = try await peers[2].node.postVote(chat: invite.id, poll: poll.message.id, choices: ["down"])
            await #expect(throws: NodeError.self) {
                try await peers[1].node.postVote(chat: invite.id, poll: poll.message.id, choices: ["down"])
            }

            // Then every peer holds the same 64 messages and computes the same tally
            let expected = 1 + 60 + 3
            try await bed.advance(by: .seconds(20))
            for (index, peer) in peers.enumerated() {
                #expect(
                    try peer.node.store.messages(matching: MessageCriteria(chat: invite.id)).count == expected,
                    "peer \(index) did not converge")
            }
            let ids = try peers.map {
                try Set($0.node.store.messages(matching: MessageCriteria(chat: invite.id)).map(\.message.id))
            }
            #expect(ids[0] == ids[1] && ids[1] == ids[2])
            let tallies = try peers.map { try $0.node.pollResults(chat: invite.id, poll: poll.message.id).tally }
            #expect(tallies.allSatisfy { $0 == tallies[0] })
            #expect((tallies[0].up, tallies[0].down) == (2, 1))
            // and the sender sees its messages delivered to both members
            #expect(try peers[0].node.store.message(poll.message.id)?.state == .delivered)
        }
        #expect(bed.network.counts.dropped > 0, "the network was supposed to lose datagrams")
    }

    /// A new node for `identity` on the bed's network and clock, knowing `peer`'s address and the chat's
    /// creator by name only; `peer` learns its address.
    static func newcomer(_ identity: Identity, knowing peer: Peer, creator: Peer, _ bed: PumpedPeers) async throws
        -> Node
    {
        let node = Node(
            configuration: NodeConfiguration(identity: identity), store: try MessageStore.inMemory(),
            transport: bed.network.makeTransport(), clock: bed.clock)
        try await node.addContact(Contact(peer: peer.identity.publicKey, name: "peer", address: peer.node.localAddress))
        try await node.addContact(Contact(peer: creator.identity.publicKey, name: "creator"))
        await peer.node.learnAddress(node.localAddress, for: identity.publicKey)
        return node
    }

    @Test func aMemberThatWasOfflineCatchesUpFromAnotherMemberNotTheAuthor() async throws {
        // Given alice and bob chat while carol's node does not exist yet
        let bed = try await PumpedPeers.make(count: 2)
        let (alice, bob) = (bed.peers[0], bed.peers[1])
        let carolIdentity = try Identity.generate()
        let invite = try await alice.node.createChat(
            title: "Later", members: [bob.identity.publicKey, carolIdentity.publicKey])
        try await bed.running {
            for n in 0..<30 { _ = try await alice.node.sendText(chat: invite.id, "early \(n)") }
            try await bed.settle()
            #expect(try bob.node.store.messages(matching: MessageCriteria(chat: invite.id)).count == 30)
            // When alice goes away and carol comes up, knowing only bob
            await alice.node.shutdown()
            let carol = try await Self.newcomer(carolIdentity, knowing: bob, creator: alice, bed)
            try await Self.running([Peer(identity: carolIdentity, node: carol)]) {
                // Then, after a few sync rounds, carol has the chat's invite and all of alice's messages, from bob
                // (alice's timer still sleeps on the clock: three timers, two endpoints)
                try await NetworkPump(network: bed.network, clock: bed.clock, nodes: 3).advance(by: .seconds(6))
                #expect((try? carol.store.messages(matching: MessageCriteria(chat: invite.id)).count) == 30)
            }
        }
    }

    @Test func aCatchUpOfManySyncBatchesFollowsEachUpWithoutWaitingForARound() async throws {
        // Given bob holds 200 of alice's messages and answers sync requests 16 messages at a time
        let bed = try await PumpedPeers.make(count: 2) { _, configuration in configuration.syncBatch = 16 }
        let (alice, bob) = (bed.peers[0], bed.peers[1])
        let carolIdentity = try Identity.generate()
        let invite = try await alice.node.createChat(
            title: "Backlog", members: [bob.identity.publicKey, carolIdentity.publicKey])
        try await bed.running {
            for n in 0..<200 { _ = try await alice.node.sendText(chat: invite.id, "backlog \(n)") }
            try await bed.settle()
            await alice.node.shutdown()
            // When carol comes up knowing only bob, and the clock moves until her first batch is stored
            let carol = try await Self.newcomer(carolIdentity, knowing: bob, creator: alice, bed)
            try await Self.running([Peer(identity: carolIdentity, node: carol)]) {
                let pump = NetworkPump(network: bed.network, clock: bed.clock, nodes: 3)
                var held = 0
                for _ in 0..<200 where held == 0 {
                    try await pump.advance(by: .milliseconds(50))
                    held = try carol.store.messages(matching: MessageCriteria(chat: invite.id)).count
                }
                try #require(held > 0, "carol never got a first batch")
                // Then, with the clock standing still, each "more" is followed up at once until she holds all 200
                try await pump.settle()
                #expect(try carol.store.messages(matching: MessageCriteria(chat: invite.id)).count == 200)
            }
        }
    }
}
