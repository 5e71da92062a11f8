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
        let bed = try await PumpedPeers.make(count: 2, conditions: .init(lossRate: 1))
        let (alice, bob) = (bed.peers[0], bed.peers[1])
        try await bed.running {
            let invite = try await alice.node.createChat(title: "Clockwork", members: [bob.identity.publicKey])
            let message = try await alice.node.sendText(chat: invite.id, "tick tock")
            try await bed.settle()

            // When the network heals but the clock stands still
            bed.network.conditions = .init(lossRate: 0)
            try await bed.settle()
            // Then nothing is resent: bob has nothing
            #expect(try bob.node.store.message(message.message.id) == nil)

            // When the clock moves past the handshake retry and the retransmit deadlines
            try await bed.advance(by: .seconds(2))
            // Then the message arrives and alice sees it delivered
            #expect(try bob.node.store.message(message.message.id) != nil)
            #expect(try alice.node.store.message(message.message.id)?.state == .delivered)
        }
    }
}
