import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Synchronization
import Testing

/// Members colluding to fill the holding of chained messages (PROTOCOL §4.1) cannot keep an honest
/// member's batch out: the member holding the most gives way, and each eviction is counted.
struct HoldingFairnessTests {
    /// `author`'s messages 1...count in the chat, sealed and linked; only the last signed, if `head`.
    static func chain(by author: Identity, in invite: ChatInvite, count: Int, head: Bool) throws -> [Message] {
        let key = try #require(try invite.key(for: author))
        var messages: [Message] = []
        for sequence in 1...UInt64(count) {
            var draft = MessageDraft(
                chat: invite.id, author: author.publicKey, sequence: sequence, previous: messages.last?.id,
                lamport: sequence,
                timestampMillis: 0, tag: .text, content: [])
            draft.content = SealedContent.seal(
                Array("\(sequence)".utf8), with: key, chat: draft.chat, author: draft.author, sequence: sequence)
            messages.append(try draft.chained())
        }
        if head { messages[count - 1] = try messages[count - 1].signedAsHead(by: author) }
        return messages
    }

    @Test func fourCollidingMembersFillingTheHoldingCannotKeepOutAnHonestBatch() async throws {
        // Given alice, whose holding takes 16 chained messages per peer and 64 in all (the default's
        // proportions: 4 × 16,384 = 65,536), in a chat with bob and four colluders
        let bed = try await PumpedPeers.make(count: 6) { index, configuration in
            guard index == 0 else { return }
            configuration.chainHolding.maxHeldPerPeer = 16
            configuration.chainHolding.maxHeld = 64
        }
        let (alice, bob, colluders) = (bed.peers[0], bed.peers[1], Array(bed.peers[2...]))
        try await bed.running {
            let invite = try await alice.node.createChat(
                title: "Fair", members: bed.peers.dropFirst().map(\.identity.publicKey))
            try await bed.settle()
            for member in bed.peers.dropFirst() { try #require(try member.node.store.chat(invite.id) != nil) }

            // When each colluder delivers its share of chained messages that no head will ever vouch for
            for colluder in colluders {
                let flood = try Self.chain(by: colluder.identity, in: invite, count: 16, head: false)
                await colluder.node.transmit(flood.map { .message($0.encoded) }, to: alice.identity.publicKey)
            }
            try await bed.settle()
            #expect(alice.node.chains.withLock { $0.count } == 64)
            let before = await alice.node.status().rejections

            // and bob then delivers a batch of 10: 9 chained messages and their head
            let batch = try Self.chain(by: bob.identity, in: invite, count: 10, head: true)
            await bob.node.transmit(batch.map { .message($0.encoded) }, to: alice.identity.publicKey)
            try await bed.settle()

            // Then alice stores all 10 of bob's (not only the head), and counts the 9 colluders' messages evicted
            let stored = try batch.count { try alice.node.store.message($0.id) != nil }
            #expect(stored == 10, "\(stored) of 10 stored")
            let after = await alice.node.status().rejections
            #expect(after["heldEvicted", default: 0] - before["heldEvicted", default: 0] == 9)
            #expect(alice.node.chains.withLock { $0.count } == 55)
        }
    }
}
