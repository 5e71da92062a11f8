import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Synchronization
import Testing

/// A run of heads arriving together (a catch-up of messages typed one at a time) is accepted on the
/// signature of its top head (PROTOCOL §4.1, covered heads): the heads below it are stored chained,
/// except one kept every 64 sequences, and a bad signature anywhere costs nothing honest.
struct CoveredHeadTests {
    /// Mallory's messages 1...count, each its own signed head.
    static func signedRun(_ bed: HostileBed, count: Int) throws -> [Message] {
        try HostileChainTests.malloryChain(bed, count: count, head: false).map {
            try $0.signedAsHead(by: bed.mallory.identity)
        }
    }

    /// Mallory sends alice the run, with the last signature byte of `run[spoiled]` flipped if given.
    static func deliver(_ run: [Message], spoiling spoiled: Int? = nil, _ bed: HostileBed) async throws {
        let frames: [Frame] = run.enumerated().map { index, message in
            .message(index == spoiled ? message.encoded.flipping(at: message.encoded.count - 1) : message.encoded)
        }
        await bed.mallory.node.transmit(frames, to: bed.alice.identity.publicKey)
        try await bed.settle()
    }

    /// Mallory's `count` signed messages delivered to alice (one spoiled, if given): what alice
    /// stored of each, and the rejections counted meanwhile.
    static func deliveredToAlice(
        count: Int, spoiling spoiled: Int?, _ bed: HostileBed
    ) async throws -> (run: [Message], stored: [Message?], counted: [String: Int]) {
        let before = await bed.rejections(of: bed.alice)
        let run = try signedRun(bed, count: count)
        try await deliver(run, spoiling: spoiled, bed)
        return (run, try stored(run, at: bed.alice), await bed.delta(of: bed.alice, from: before))
    }

    static func stored(_ run: [Message], at peer: HostileBed.Peers.Peer) throws -> [Message?] {
        try run.map { try peer.node.store.message($0.id)?.message }
    }

    @Test func aRunOfHeadsIsStoredOnItsTopSignatureWithTheHeadsBelowItChained() async throws {
        let bed = try await HostileBed.make()
        try await bed.running {
            // When mallory delivers 130 messages, each signed, and a relayer spoiled the signature of the 3rd
            var (run, stored, counted) = try await Self.deliveredToAlice(count: 130, spoiling: 2, bed)

            // Then all are stored and nothing is counted: the hash chain from the checked heads vouches for every body
            #expect(stored.allSatisfy { $0 != nil })
            #expect(counted == [:])
            // and only the checked heads keep their signature: the top and one every 64 sequences below it
            #expect(stored.compactMap { $0 }.filter(\.isHead).map(\.sequence) == [2, 66, 130])
            run[2] = try #require(stored[2])
            #expect(!run[2].isHead && run[2].encoded.last == 0)
        }
    }

    @Test func whenTheTopHeadFailsTheHeadsItCoveredAreCheckedOneByOne() async throws {
        let bed = try await HostileBed.make()
        try await bed.running {
            let (_, stored, counted) = try await Self.deliveredToAlice(count: 5, spoiling: 4, bed)

            // Then the four genuine heads are stored as heads, and only the forged one is refused
            #expect(stored.prefix(4).allSatisfy { $0?.isHead == true })
            #expect(stored[4] == nil)
            #expect(counted == ["badSignature": 1])
        }
    }

    @Test func aRunStoredOnItsTopSignatureIsServedOnToAMemberWhoMissedIt() async throws {
        let bed = try await HostileBed.make()
        try await bed.running {
            // Given alice stored mallory's 130 signed messages, most of them without their signature
            let run = try Self.signedRun(bed, count: 130)
            try await Self.deliver(run, bed)
            #expect(try Self.stored(run, at: bed.alice).allSatisfy { $0 != nil })

            // When bob, who never got them, syncs (mallory's own node never stored them: they were sent raw)
            try await bed.pump.advance(by: .seconds(10), step: .milliseconds(250))

            // Then he gets all of them from alice, through the heads she kept
            #expect(try Self.stored(run, at: bed.bob).allSatisfy { $0 != nil })
            #expect(bed.bob.node.chains.withLock { $0.count } == 0)
        }
    }

    @Test func whenTheStoreRefusesTheCheckedHeadTheHighestStoredHeadBelowItKeepsItsSignature() async throws {
        let bed = try await HostileBed.make()
        try await bed.running {
            let before = await bed.rejections(of: bed.alice)
            // Given mallory's messages 1...5, each signed, the 5th with content not sealed for the keyed chat
            var run = try Self.signedRun(bed, count: 5)
            var draft = run[4].draft
            draft.content = Array("in the clear".utf8)
            run[4] = try draft.signed(by: bed.mallory.identity)
            await bed.mallory.node.transmit(run.map { .message($0.encoded) }, to: bed.alice.identity.publicKey)
            try await bed.settle()

            // Then 1...4 are stored, the 4th signed again (a peer syncing from alice can accept the run),
            // and the 5th is refused as malformed
            let stored = try Self.stored(run, at: bed.alice)
            #expect(stored.prefix(4).allSatisfy { $0 != nil } && stored[4] == nil)
            #expect(stored[3]?.isHead == true && stored[2]?.isHead == false)
            #expect(await bed.delta(of: bed.alice, from: before) == ["malformed": 1])
        }
    }
}
