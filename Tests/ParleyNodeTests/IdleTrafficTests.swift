import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Testing

/// An idle chat costs no sync traffic: once members' vectors agree, the periodic round asks no one,
/// and only presence heartbeats flow; a new message makes them ask again.
struct IdleTrafficTests {
    func dataDatagrams(_ bed: HostileBed) -> Int {
        bed.peers.reduce(0) { total, sender in
            total + bed.peers.filter { $0.identity.publicKey != sender.identity.publicKey }
                .reduce(0) { $0 + bed.captured(from: sender, to: $1, type: 3).count }
        }
    }

    @Test func membersWhoseVectorsAgreeSendOnlyHeartbeats() async throws {
        let bed = try await HostileBed.make()
        try await bed.running {
            _ = try await bed.alice.node.sendText(chat: bed.invite.id, "hello")
            try await bed.settle()
            // Two rounds, so every member has heard every other's vector
            try await bed.pump.advance(by: .seconds(5), step: .milliseconds(250))
            let before = dataDatagrams(bed)

            // When 10 s pass with nobody writing
            try await bed.pump.advance(by: .seconds(10), step: .milliseconds(250))

            // Then only heartbeats went out (each of 3 nodes to 2 peers, every 5 s: 12), no sync rounds
            // (5 rounds of requests and replies would add 60)
            let idle = dataDatagrams(bed) - before
            #expect(idle <= 12, "\(idle) datagrams while idle")

            // And a message written now reaches everyone, and the members agree again
            let text = try await bed.bob.node.sendText(chat: bed.invite.id, "after the quiet")
            try await bed.settle()
            for member in bed.peers { #expect(try member.node.store.message(text.message.id) != nil) }
        }
    }
}
