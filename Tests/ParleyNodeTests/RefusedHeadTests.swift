import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Testing

/// A head the store refuses takes down with it what it alone vouched for (PROTOCOL §4.1): a run stored
/// without its head could be accepted by no peer syncing from here, and sync would send it every round.
struct RefusedHeadTests {
    /// Mallory's run of `count` linked messages whose last (a signed head, `signed`) has content not
    /// sealed for the keyed chat, which every store refuses; with `signedBelow`, every message is signed.
    static func runUnderARefusedHead(_ bed: HostileBed, count: Int, signedBelow: Bool) throws -> [Message] {
        var run = try HostileChainTests.malloryChain(bed, count: count, head: false)
        if signedBelow { run = try run.map { try $0.signedAsHead(by: bed.mallory.identity) } }
        var draft = run[count - 1].draft
        draft.content = Array("in the clear".utf8)
        run[count - 1] = try draft.signed(by: bed.mallory.identity)
        return run
    }

    /// Messages sent in sync replies by every node, in all.
    static func syncMessagesSent(_ bed: HostileBed) async -> Int {
        var total = 0
        for peer in bed.peers { total += await peer.node.status().syncMessagesSent }
        return total
    }

    @Test func aRunUnderAHeadTheStoreRefusesIsNotStoredNorSentOnBySync() async throws {
        let bed = try await HostileBed.make()
        try await bed.running {
            let before = await bed.rejections(of: bed.alice)
            // When mallory delivers alice three chained messages and a head, signed, that the store refuses
            let run = try Self.runUnderARefusedHead(bed, count: 4, signedBelow: false)
            await bed.mallory.node.transmit(run.map { .message($0.encoded) }, to: bed.alice.identity.publicKey)
            try await bed.settle()
            let sentBefore = await Self.syncMessagesSent(bed)
            try await bed.pump.advance(by: .seconds(40), step: .milliseconds(250))

            // Then alice stores none of it, counts the head alone, and sync sends nothing of it in 40 s
            #expect(try run.allSatisfy { try bed.alice.node.store.message($0.id) == nil })
            #expect(await bed.delta(of: bed.alice, from: before) == ["malformed": 1])
            let sent = await Self.syncMessagesSent(bed) - sentBefore
            #expect(sent == 0, "\(sent) sent by sync in 40 s")
            #expect(try run.allSatisfy { try bed.bob.node.store.message($0.id) == nil })
        }
    }

    @Test func underARefusedHeadTheHighestCoveredHeadThatVerifiesIsStoredSignedAndNothingAboveIt() async throws {
        let bed = try await HostileBed.make()
        try await bed.running {
            // When mallory delivers alice 5 signed messages: the 5th refused by the store, the 4th's
            // signature spoiled (covered by the 5th, it is not checked on arrival)
            let run = try Self.runUnderARefusedHead(bed, count: 5, signedBelow: true)
            var frames = run.map { Frame.message($0.encoded) }
            frames[3] = .message(run[3].encoded.flipping(at: run[3].encoded.count - 1))
            await bed.mallory.node.transmit(frames, to: bed.alice.identity.publicKey)
            try await bed.settle()
            try await bed.pump.advance(by: .seconds(20), step: .milliseconds(250))
            let sentBefore = await Self.syncMessagesSent(bed)
            try await bed.pump.advance(by: .seconds(20), step: .milliseconds(250))

            // Then alice stores 1...3, the 3rd signed, and nothing above it; so does everyone by sync
            for peer in bed.peers {
                let stored = try CoveredHeadTests.stored(run, at: peer)
                #expect(stored.map { $0 != nil } == [true, true, true, false, false])
                #expect(stored[2]?.isHead == true)
            }
            // and, once they have them, sync sends nothing more
            let sent = await Self.syncMessagesSent(bed) - sentBefore
            #expect(sent == 0, "\(sent) sent by sync in the last 20 s")
        }
    }
}
