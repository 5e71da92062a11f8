import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Testing

/// Time moves only when the test advances the injected clock: retransmits are due by the clock, not by luck.
struct ClockDrivenTests {
    @Test func aLostMessageIsRetransmittedWhenTheClockReachesItsDeadline() async throws {
        // Given alice and bob on a clock only the test moves, and a network that drops everything
        let network = InMemoryNetwork(conditions: .init(lossRate: 1))
        let clock = ManualClock()
        let peers = try [Identity.generate(), Identity.generate()].map { identity in
            LossyNetworkConvergenceTests.Peer(identity: identity, node: Node(
                configuration: NodeConfiguration(identity: identity), store: try MessageStore.inMemory(),
                transport: network.makeTransport(), clock: clock))
        }
        let (alice, bob) = (peers[0], peers[1])
        try await LossyNetworkConvergenceTests.introduce(peers)
        try await LossyNetworkConvergenceTests.running(peers) {
            let invite = try await alice.node.createChat(title: "Clockwork", members: [bob.identity.publicKey])
            let message = try await alice.node.sendText(chat: invite.id, "tick tock")

            // When the network heals but the clock stands still
            network.conditions = .init(lossRate: 0)
            try await Task.sleep(for: .milliseconds(300))
            // Then nothing is resent: bob has nothing
            #expect(try bob.node.store.message(message.message.id) == nil)

            // When the clock moves past the handshake retry and the retransmit deadlines, one tick at a time
            var arrived = false
            for _ in 0..<200 where !arrived {
                clock.advance(by: .milliseconds(50))
                try await Task.sleep(for: .milliseconds(5))
                arrived = try bob.node.store.message(message.message.id) != nil
            }
            // Then the message arrives and alice sees it delivered
            #expect(arrived)
            let delivered = try await LossyNetworkConvergenceTests.eventually {
                clock.advance(by: .milliseconds(50))
                return try alice.node.store.message(message.message.id)?.state == .delivered
            }
            #expect(delivered)
        }
    }
}
