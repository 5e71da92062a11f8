import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Testing

/// A burst far larger than a peer's window: flow control must deliver all of it, without sending
/// every message many times over.
struct BurstDeliveryTests {
    /// On the pumped bed the run is the same every time, so what alice sends is an exact count: a
    /// change to what the node sends moves it (check it stays far below one datagram per message).
    @Test(arguments: zip([0.0, 0.1], [370, 486]))
    func aBurstTwentyTimesTheWindowArrivesWholeWithFewResends(lossRate: Double, datagrams: Int) async throws {
        // Given alice and bob on a network that may lose 10% of datagrams
        let bed = try await PumpedPeers.make(
            count: 2, conditions: .init(lossRate: lossRate, duplicateRate: 0, reorder: lossRate > 0), seed: 11)
        let (alice, bob) = (bed.peers[0], bed.peers[1])
        try await bed.running {
            let invite = try await alice.node.createChat(title: "Burst", members: [bob.identity.publicKey])
            try await bed.settle()
            #expect(try bob.node.store.chat(invite.id) != nil)
            let before = await alice.node.status().datagramsOut
            // When alice sends 1,280 messages before the network delivers any (the window starts at 64)
            let count = 1_280
            for index in 0..<count { _ = try await alice.node.sendText(chat: invite.id, "burst \(index)") }
            // Then, the clock moving until it is done (at most a minute), bob holds every one, and alice
            // sees them all delivered
            let held = { try bob.node.store.contiguousSequences(chat: invite.id)[alice.identity.publicKey] }
            var done = false
            for _ in 0..<600 where !done {
                try await bed.advance(by: .milliseconds(100))
                let pending = await alice.node.status().pendingRetransmits
                done = try held() == UInt64(count) && pending == 0
            }
            #expect(try held() == UInt64(count))
            #expect(await alice.node.status().pendingRetransmits == 0)
            // and what went over the wire, acks, resends and syncs included, is far less than one datagram
            // per message: no retransmit storm
            let sent = await alice.node.status().datagramsOut - before
            #expect(sent == datagrams, "\(sent) datagrams for \(count) messages")
        }
        #expect((bed.network.counts.dropped > 0) == (lossRate > 0))
    }
}
