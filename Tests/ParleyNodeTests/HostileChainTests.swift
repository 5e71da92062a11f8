import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Synchronization
import Testing

/// Hash chains under attack (PROTOCOL §4.1): mallory, a member with a session with alice, sends chains
/// that a verified head does not vouch for. Nothing of them is stored, shown or tallied; each is counted
/// under its reason; the honest members go on and agree.
struct HostileChainTests {
    /// Mallory's messages 1...count, sealed for the bed's chat, linked; none signed unless `head`.
    static func malloryChain(
        _ bed: HostileBed, count: Int, tag: ParleyCore.Tag = .text, references: [MessageReference] = [], head: Bool
    ) throws -> [Message] {
        let mallory = bed.mallory.identity
        var messages: [Message] = []
        var previous: MessageID?
        for sequence in 1...UInt64(count) {
            var draft = MessageDraft(
                chat: bed.invite.id, author: mallory.publicKey, sequence: sequence, previous: previous,
                lamport: sequence,
                timestampMillis: 0, tag: tag, content: [], references: references)
            let key = try #require(try bed.invite.key(for: mallory))
            draft.content = SealedContent.seal(
                Array("m\(sequence)".utf8), with: key, chat: draft.chat, author: draft.author, sequence: sequence)
            let message = try draft.chained()
            messages.append(message)
            previous = message.id
        }
        if head { messages[count - 1] = try messages[count - 1].signedAsHead(by: mallory) }
        return messages
    }

    @Test func aSegmentThatNeverReachesAHeadIsHeldThenDroppedAsHeadless() async throws {
        let bed = try await HostileBed.make()
        try await bed.running {
            let before = await bed.rejections(of: bed.alice)
            // When mallory sends alice three chained messages and never their head
            let chain = try Self.malloryChain(bed, count: 3, head: false)
            await bed.mallory.node.transmit(chain.map { .message($0.encoded) }, to: bed.alice.identity.publicKey)
            try await bed.settle()

            // Then alice holds them, stores none, and drops them once 30 s pass without a head
            #expect(chain.allSatisfy { message in bed.alice.node.chains.withLock { $0.isHeld(message.id) } })
            #expect(try chain.allSatisfy { try bed.alice.node.store.message($0.id) == nil })
            try await bed.pump.advance(by: .seconds(31), step: .seconds(1))
            #expect(await bed.delta(of: bed.alice, from: before) == ["headless": 3])
            #expect(bed.alice.node.chains.withLock { $0.count } == 0)
            #expect(try await bed.honestMessageArrives("after the headless chain", from: bed.bob, to: bed.alice))
        }
    }

    @Test func aHeadVouchesForItsSegmentAndMessagesThatDoNotLinkAreDroppedAsBrokenChain() async throws {
        let bed = try await HostileBed.make()
        try await bed.running {
            let before = await bed.rejections(of: bed.alice)
            // When mallory sends a genuine batch of three, plus two chained messages in the same slots
            // that her chain does not name (forged in her name, or left over from a rewrite)
            let chain = try Self.malloryChain(bed, count: 3, head: true)
            let strays = try Self.malloryChain(bed, count: 2, tag: .pollVoteUp, head: false)
            let frames: [Frame] = (strays + chain).map { .message($0.encoded) }
            await bed.mallory.node.transmit(frames, to: bed.alice.identity.publicKey)
            try await bed.settle()

            // Then the batch is stored whole, the strays are counted and gone
            #expect(try chain.allSatisfy { try bed.alice.node.store.message($0.id) != nil })
            #expect(try strays.allSatisfy { try bed.alice.node.store.message($0.id) == nil })
            #expect(await bed.delta(of: bed.alice, from: before) == ["brokenChain": 2])
            #expect(bed.alice.node.chains.withLock { $0.count } == 0)
        }
    }

    @Test func aHeadWhoseSignatureFailsVouchesForNothing() async throws {
        let bed = try await HostileBed.make()
        try await bed.running {
            let before = await bed.rejections(of: bed.alice)
            var chain = try Self.malloryChain(bed, count: 3, head: true)
            let forged = chain[2].encoded.flipping(at: chain[2].encoded.count - 1) // a signature byte
            chain.removeLast()
            await bed.mallory.node.transmit(
                chain.map { .message($0.encoded) } + [.message(forged)], to: bed.alice.identity.publicKey)
            try await bed.settle()
            #expect(try chain.allSatisfy { try bed.alice.node.store.message($0.id) == nil })
            try await bed.pump.advance(by: .seconds(31), step: .seconds(1))
            #expect(await bed.delta(of: bed.alice, from: before) == ["badSignature": 1, "headless": 2])
        }
    }

    @Test func anAuthorWhoSignsTwoHistoriesIsReportedAsEquivocatingAndTheFirstStays() async throws {
        let bed = try await HostileBed.make()
        try await bed.running {
            let before = await bed.rejections(of: bed.alice)
            // When mallory signs two different messages 1, and sends alice both, one after the other
            let first = try Self.malloryChain(bed, count: 1, head: true)[0]
            let second = try Self.malloryChain(bed, count: 1, tag: .pollVoteDown, head: true)[0]
            #expect(first.id != second.id && first.sequence == second.sequence)
            await bed.mallory.node.transmit([.message(first.encoded)], to: bed.alice.identity.publicKey)
            try await bed.settle()
            await bed.mallory.node.transmit([.message(second.encoded)], to: bed.alice.identity.publicKey)
            try await bed.settle()

            // Then alice keeps the first, counts the second as equivocation, proves the fork from the
            // two (§4.4), and the chat goes on
            #expect(try bed.alice.node.store.message(first.id) != nil)
            #expect(try bed.alice.node.store.message(second.id) == nil)
            #expect(await bed.delta(of: bed.alice, from: before) == ["equivocation": 1, "forkProven": 1])
            #expect(
                try bed.alice.node.store.forks(chat: bed.invite.id).forkedFrom == [
                    bed.mallory.identity.publicKey: first.sequence
                ])
            #expect(try await bed.honestMessageArrives("after the fork", from: bed.bob, to: bed.alice))
        }
    }

    @Test func aMessageLostInTheMiddleOfABatchIsAcceptedWhenItComesAgainAfterItsHead() async throws {
        let bed = try await HostileBed.make()
        try await bed.running {
            let before = await bed.rejections(of: bed.alice)
            let chain = try Self.malloryChain(bed, count: 4, head: true)
            // When messages 1, 3 and the head 4 arrive, then message 2 on its own
            await bed.mallory.node.transmit(
                [chain[0], chain[2], chain[3]].map { .message($0.encoded) }, to: bed.alice.identity.publicKey)
            try await bed.settle()
            #expect(try bed.alice.node.store.message(chain[0].id) == nil) // waits: 2 is missing
            #expect(try bed.alice.node.store.message(chain[2].id) != nil)
            await bed.mallory.node.transmit([.message(chain[1].encoded)], to: bed.alice.identity.publicKey)
            try await bed.settle()

            // Then the stored message 3 vouches for 2, and 2 for 1: all four are stored, nothing counted
            #expect(try chain.allSatisfy { try bed.alice.node.store.message($0.id) != nil })
            #expect(await bed.delta(of: bed.alice, from: before) == [:])
        }
    }

    @Test func honestMembersTallyTheSameWhileAHeadlessVoteChainIsIgnored() async throws {
        let bed = try await HostileBed.make()
        try await bed.running {
            let poll = try await bed.alice.node.createPoll(chat: bed.invite.id, question: "Lake?")
            try await bed.settle()
            // When bob sends 40 messages at once and then votes, and mallory sends a headless vote chain
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<40 {
                    group.addTask { _ = try await bed.bob.node.sendText(chat: bed.invite.id, "burst \(index)") }
                }
                try await group.waitForAll()
            }
            _ = try await bed.bob.node.postVote(chat: bed.invite.id, poll: poll.message.id, choices: ["up"])
            let headless = try Self.malloryChain(
                bed, count: 2, tag: .pollVoteDown,
                references: [MessageReference(id: poll.message.id, tag: .pollVoteDown)], head: false)
            for member in [bed.alice, bed.bob] {
                await bed.mallory.node.transmit(headless.map { .message($0.encoded) }, to: member.identity.publicKey)
            }
            try await bed.settle()
            try await bed.pump.advance(by: .seconds(31), step: .seconds(1))

            // Then every node holds bob's burst and vote, and every node's tally is bob's one vote
            // (how many heads the burst took depends on how the sends met in the outbox: see
            // aBatchLargerThanThePushWindow… for the runs a head covers)
            let bobs = try bed.alice.node.store.messages(matching: MessageCriteria(chat: bed.invite.id)).filter {
                $0.message.author == bed.bob.identity.publicKey
            }
            #expect(bobs.count == 41)
            for member in bed.peers {
                #expect(try bobs.allSatisfy { try member.node.store.message($0.id) != nil })
            }
            for member in bed.peers {
                let results = try member.node.pollResults(chat: bed.invite.id, poll: poll.message.id)
                #expect(results.tally.up == 1 && results.tally.down == 0, "\(results.tally)")
            }
        }
    }

    @Test func aBatchLargerThanThePushWindowIsDeliveredWithoutWaitingForRetransmits() async throws {
        let bed = try await HostileBed.make()
        try await bed.running {
            // When bob sends 200 messages at once (one send batch, past the 64-message push window)
            let sent = try await withThrowingTaskGroup(of: MessageID.self) { group in
                for index in 0..<200 {
                    group.addTask { try await bed.bob.node.sendText(chat: bed.invite.id, "burst \(index)").message.id }
                }
                return try await group.reduce(into: [MessageID]()) { $0.append($1) }
            }
            // Then alice holds all of them with time standing still: a head lies within every 64
            // messages, so her acks open bob's window without a retransmit timeout
            try await bed.settle()
            #expect(try sent.allSatisfy { try bed.alice.node.store.message($0) != nil })
            let run = try bed.bob.node.store.messages(matching: MessageCriteria(chat: bed.invite.id))
                .filter { $0.message.author == bed.bob.identity.publicKey }.sorted {
                    $0.message.sequence < $1.message.sequence
                }
            var chained = 0, longest = 0
            for stored in run {
                chained = stored.message.isHead ? 0 : chained + 1
                longest = max(longest, chained)
            }
            #expect(longest < Node.maxChainedRun, "a run of \(longest) chained messages")
        }
    }

    @Test func aHeadArrivingOnItsOwnReleasesTheRunHeldBeforeIt() async throws {
        let bed = try await HostileBed.make()
        try await bed.running {
            let chain = try Self.malloryChain(bed, count: 3, head: true)
            await bed.mallory.node.transmit(
                chain.dropLast().map { .message($0.encoded) }, to: bed.alice.identity.publicKey)
            try await bed.settle()
            #expect(try bed.alice.node.store.message(chain[0].id) == nil)
            await bed.mallory.node.transmit([.message(chain[2].encoded)], to: bed.alice.identity.publicKey)
            try await bed.settle()
            #expect(try chain.allSatisfy { try bed.alice.node.store.message($0.id) != nil })
        }
    }
}
