import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Testing

/// Read receipts between in-process peers on a lossy network.
struct ReadReceiptTests {
    @Test func readReceiptsReachTheAuthorDespiteLoss() async throws {
        // Given three peers on a network losing 20% of datagrams, duplicating and reordering
        let bed = try HookedPeers(count: 3, conditions: .init(lossRate: 0.2, duplicateRate: 0.05, reorder: true), seed: 23)
        let (alice, bob, carol) = (bed.peers[0].node, bed.peers[1].node, bed.peers[2].node)
        try await LossyNetworkConvergenceTests.introduce(bed.peers)
        try await LossyNetworkConvergenceTests.running(bed.peers) {
            let chat = try await alice.createChat(title: "receipts", members: [bob.me, carol.me])
            var sent: [StoredMessage] = []
            for n in 0..<8 { sent.append(try await alice.sendText(chat: chat.id, "message \(n)")) }
            for peer in [bob, carol] {
                let arrived = try await LossyNetworkConvergenceTests.eventually {
                    try peer.store.messages(matching: MessageCriteria(chat: chat.id)).count == sent.count
                }
                #expect(arrived)
            }
            #expect(try bob.store.unreadCount(chat: chat.id, me: bob.me) == 8)

            // When bob reads up to the fifth message to arrive, then everything; carol reads nothing
            let upTo = try bob.store.messages(matching: MessageCriteria(chat: chat.id))[4].localNumber
            #expect(try await bob.markRead(chat: chat.id, upTo: upTo) == 5)
            #expect(try await bob.markRead(chat: chat.id) == 3)
            #expect(try await bob.markRead(chat: chat.id) == 0)

            // Then alice records bob's reads of all eight, and none by carol
            let allRead = try await LossyNetworkConvergenceTests.eventually {
                try sent.allSatisfy { message in
                    try alice.store.receipts(message: message.id)?.first { $0.member == bob.me }?.read == true
                }
            }
            #expect(allRead, "some read receipts never arrived")
            for message in sent {
                let receipts = try #require(try alice.store.receipts(message: message.id))
                #expect(receipts.map(\.member).sorted() == [bob.me, carol.me].sorted())
                #expect(receipts.first { $0.member == carol.me }?.read == false)
            }
            #expect(try bob.store.unreadCount(chat: chat.id, me: bob.me) == 0)
            #expect(try carol.store.unreadCount(chat: chat.id, me: carol.me) == 8)
            // and every receipt was acknowledged: nothing is left to resend
            let drained = try await LossyNetworkConvergenceTests.eventually { await bob.status().pendingRetransmits == 0 }
            #expect(drained)
            #expect(try bob.store.pendingReadReceipts().isEmpty)
        }
        #expect(bed.network.counts.dropped > 0, "the network was supposed to lose datagrams")
    }
}

extension ReadReceiptTests {
    @Test func aReceiptNotYetAcknowledgedIsSentAgainAfterARestart() async throws {
        // Given alice's message reached bob, then both nodes stopped
        let network = InMemoryNetwork()
        let (aliceID, bobID) = (try Identity.generate(), try Identity.generate())
        let (aliceStore, bobStore) = (try MessageStore.inMemory(), try MessageStore.inMemory())
        func node(_ identity: Identity, _ store: MessageStore) -> LossyNetworkConvergenceTests.Peer {
            var configuration = NodeConfiguration(identity: identity)
            configuration.tick = .milliseconds(10)
            configuration.syncInterval = .milliseconds(150)
            return .init(identity: identity, node: Node(configuration: configuration, store: store, transport: network.makeTransport()))
        }
        let first = [node(aliceID, aliceStore), node(bobID, bobStore)]
        try await LossyNetworkConvergenceTests.introduce(first)
        let chat = try await first[0].node.createChat(title: "later", members: [bobID.publicKey])
        let sent = try await first[0].node.sendText(chat: chat.id, "read me")
        try await LossyNetworkConvergenceTests.running(first) {
            let arrived = try await LossyNetworkConvergenceTests.eventually { try bobStore.message(sent.id) != nil }
            #expect(arrived)
        }
        await first[0].node.shutdown()

        // When bob reads it while alice is away, and his node stops before any ack
        #expect(try await first[1].node.markRead(chat: chat.id) == 1)
        await first[1].node.shutdown()
        #expect(try bobStore.pendingReadReceipts().map(\.message) == [sent.id])

        // Then, both restarted on their stores, alice learns that bob read it, and bob's queue empties
        let second = [node(aliceID, aliceStore), node(bobID, bobStore)]
        await second[1].node.learnAddress(second[0].node.localAddress, for: aliceID.publicKey)
        await second[0].node.learnAddress(second[1].node.localAddress, for: bobID.publicKey)
        try await LossyNetworkConvergenceTests.running(second) {
            let read = try await LossyNetworkConvergenceTests.eventually {
                try aliceStore.receipts(message: sent.id)?.first?.read == true
            }
            #expect(read, "the receipt was not sent again after the restart")
            let cleared = try await LossyNetworkConvergenceTests.eventually { try bobStore.pendingReadReceipts().isEmpty }
            #expect(cleared)
        }
    }
}
