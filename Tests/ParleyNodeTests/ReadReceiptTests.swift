import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Testing

/// Read receipts between in-process peers on a lossy network, stepped by a `NetworkPump`.
struct ReadReceiptTests {
    @Test func readReceiptsReachTheAuthorDespiteLoss() async throws {
        // Given three peers on a network losing 20% of datagrams, duplicating and reordering
        let bed = try await PumpedPeers.make(
            count: 3, conditions: .init(lossRate: 0.2, duplicateRate: 0.05, reorder: true), seed: 23)
        let (alice, bob, carol) = (bed.peers[0].node, bed.peers[1].node, bed.peers[2].node)
        try await bed.running {
            let chat = try await alice.createChat(title: "receipts", members: [bob.me, carol.me])
            var sent: [StoredMessage] = []
            for n in 0..<8 { sent.append(try await alice.sendText(chat: chat.id, "message \(n)")) }
            try await bed.advance(by: .seconds(10)) // retransmits and sync repair what the network lost
            for peer in [bob, carol] {
                #expect(try peer.store.messages(matching: MessageCriteria(chat: chat.id)).count == sent.count)
            }
            #expect(try bob.store.unreadCount(chat: chat.id, me: bob.me) == 8)

            // When bob reads up to the fifth message to arrive, then everything; carol reads nothing
            let upTo = try bob.store.messages(matching: MessageCriteria(chat: chat.id))[4].localNumber
            #expect(try await bob.markRead(chat: chat.id, upTo: upTo) == 5)
            #expect(try await bob.markRead(chat: chat.id) == 3)
            #expect(try await bob.markRead(chat: chat.id) == 0)
            try await bed.advance(by: .seconds(10))

            // Then alice records bob's reads of all eight, and none by carol
            for message in sent {
                let receipts = try #require(try alice.store.receipts(message: message.id))
                #expect(receipts.first { $0.member == bob.me }?.read == true, "a read receipt never arrived")
                #expect(receipts.map(\.member).sorted() == [bob.me, carol.me].sorted())
                #expect(receipts.first { $0.member == carol.me }?.read == false)
            }
            #expect(try bob.store.unreadCount(chat: chat.id, me: bob.me) == 0)
            #expect(try carol.store.unreadCount(chat: chat.id, me: carol.me) == 8)
            // and every receipt was acknowledged: nothing is left to resend
            #expect(await bob.status().pendingRetransmits == 0)
            #expect(try bob.store.pendingReadReceipts().isEmpty)
        }
        #expect(bed.network.counts.dropped > 0, "the network was supposed to lose datagrams")
    }
}

extension ReadReceiptTests {
    @Test func aReceiptNotYetAcknowledgedIsSentAgainAfterARestart() async throws {
        // Given alice's message reached bob, then both nodes stopped
        let network = InMemoryNetwork(delivery: .held), clock = ManualClock()
        let pump = NetworkPump(network: network, clock: clock, nodes: 2)
        let (aliceID, bobID) = (try Identity.generate(), try Identity.generate())
        let (aliceStore, bobStore) = (try MessageStore.inMemory(), try MessageStore.inMemory())
        func node(_ identity: Identity, _ store: MessageStore) -> LossyNetworkConvergenceTests.Peer {
            .init(
                identity: identity,
                node: Node(
                    configuration: NodeConfiguration(identity: identity), store: store,
                    transport: network.makeTransport(), clock: clock))
        }
        let first = [node(aliceID, aliceStore), node(bobID, bobStore)]
        try await LossyNetworkConvergenceTests.introduce(first)
        let chat = try await first[0].node.createChat(title: "later", members: [bobID.publicKey])
        let sent = try await first[0].node.sendText(chat: chat.id, "read me")
        try await LossyNetworkConvergenceTests.running(first) {
            try await pump.settle()
            #expect(try bobStore.message(sent.id) != nil)
        }
        await first[0].node.shutdown()

        // When bob reads it while alice is away, and his node stops before any ack
        #expect(try await first[1].node.markRead(chat: chat.id) == 1)
        await first[1].node.shutdown()
        #expect(try bobStore.pendingReadReceipts().map(\.message) == [sent.id])
        #expect(try aliceStore.receipts(message: sent.id)?.first?.read == false)

        // Then, both restarted on their stores, alice learns that bob read it, and bob's queue empties
        let second = [node(aliceID, aliceStore), node(bobID, bobStore)]
        await second[1].node.learnAddress(second[0].node.localAddress, for: aliceID.publicKey)
        await second[0].node.learnAddress(second[1].node.localAddress, for: bobID.publicKey)
        try await LossyNetworkConvergenceTests.running(second) {
            try await pump.settle()
            #expect(
                try aliceStore.receipts(message: sent.id)?.first?.read == true,
                "the receipt was not sent again after the restart")
            #expect(try bobStore.pendingReadReceipts().isEmpty)
        }
    }
}
