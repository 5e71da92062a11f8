import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Testing

/// A burst far larger than a peer's window: flow control must deliver all of it, without sending
/// every message many times over.
struct BurstDeliveryTests {
    typealias Peers = LossyNetworkConvergenceTests

    @Test(arguments: [0.0, 0.1])
    func aBurstTwentyTimesTheWindowArrivesWholeWithFewResends(lossRate: Double) async throws {
        // Given alice and bob on a network that may lose 10% of datagrams
        let network = InMemoryNetwork(conditions: .init(lossRate: lossRate, duplicateRate: 0, reorder: lossRate > 0), seed: 11)
        let peers = try Peers.makePeers(network, count: 2)
        let (alice, bob) = (peers[0], peers[1])
        try await Peers.introduce(peers)
        try await Peers.running(peers) {
            let invite = try await alice.node.createChat(title: "Burst", members: [bob.identity.publicKey])
            #expect(try await Peers.eventually { try bob.node.store.chat(invite.id) != nil })
            // When alice sends 1,280 messages at once (the window starts at 64)
            let count = 1_280
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<count {
                    group.addTask { _ = try await alice.node.sendText(chat: invite.id, "burst \(index)") }
                }
                try await group.waitForAll()
            }
            // Then bob holds every one, and alice sees them all delivered
            let complete = try await Peers.eventually {
                try bob.node.store.contiguousSequences(chat: invite.id)[alice.identity.publicKey] == UInt64(count)
            }
            #expect(complete)
            let delivered = try await Peers.eventually { await alice.node.status().pendingRetransmits == 0 }
            #expect(delivered)
            // and what went over the wire stays near one copy of each, acks and syncs included: no
            // retransmit storm (how many messages share a datagram depends on timing, so the bound is loose)
            let sent = await alice.node.status().datagramsOut
            #expect(sent < count * 2, "\(sent) datagrams for \(count) messages")
        }
    }
}
