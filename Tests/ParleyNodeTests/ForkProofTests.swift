import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Testing

/// A member who signs two histories (PROTOCOL.md §4.4): mallory sends one message for a slot of her
/// chain to alice and another for the same slot to bob. Whatever arrived first, both nodes end with
/// the same proof and the same results, and the fork is shown with her name.
struct ForkProofTests {
    /// Mallory's message at `sequence` in the bed's chat, sealed, naming `previous`, signed unless `head` is false.
    static func forged(
        _ bed: HostileBed, sequence: UInt64, previous: MessageID?, tag: ParleyCore.Tag,
        references: [MessageReference] = [],
        plaintext: [UInt8] = [], lamport: UInt64 = 100, head: Bool = true
    ) throws -> Message {
        let mallory = bed.mallory.identity
        let key = try #require(try bed.invite.key(for: mallory))
        var draft = MessageDraft(
            chat: bed.invite.id, author: mallory.publicKey, sequence: sequence, previous: previous, lamport: lamport,
            timestampMillis: 0, tag: tag, content: [], references: references)
        draft.content = SealedContent.seal(
            plaintext, with: key, chat: draft.chat, author: draft.author, sequence: sequence)
        let chained = try draft.chained()
        return head ? try chained.signedAsHead(by: mallory) : chained
    }

    /// Mallory's next free slot and the id of her message below it, as her own node holds them.
    static func nextSlot(_ bed: HostileBed) throws -> (sequence: UInt64, previous: MessageID?) {
        let store = bed.mallory.node.store
        let sequence = try store.nextSequence(chat: bed.invite.id, author: bed.mallory.identity.publicKey)
        let previous =
            sequence > 1
            ? try store.messageID(chat: bed.invite.id, author: bed.mallory.identity.publicKey, sequence: sequence - 1)
            : nil
        return (sequence, previous)
    }

    static func vote(
        _ bed: HostileBed, _ tag: ParleyCore.Tag, on poll: MessageID, at slot: (sequence: UInt64, previous: MessageID?)
    ) throws -> Message {
        try forged(
            bed, sequence: slot.sequence, previous: slot.previous, tag: tag,
            references: [MessageReference(id: poll, tag: tag)])
    }

    /// Lets the sync rounds run (2 s each) until the forks have crossed.
    static func syncRounds(_ bed: HostileBed, seconds: Int = 8) async throws {
        try await bed.pump.advance(by: .seconds(seconds), step: .milliseconds(250))
        try await bed.settle()
    }

    @Test func aForkedVoteIsProvenAndCountsForNothingOnEveryNode() async throws {
        let bed = try await HostileBed.make()
        try await bed.running {
            let poll = try await bed.alice.node.createPoll(chat: bed.invite.id, question: "Pizza?")
            try await bed.settle()
            _ = try await bed.alice.node.postVote(chat: bed.invite.id, poll: poll.id, choices: ["up"])
            _ = try await bed.bob.node.postVote(chat: bed.invite.id, poll: poll.id, choices: ["down"])
            try await bed.settle()

            // When mallory signs an up vote for alice and a down vote for bob, in the same slot
            let slot = try Self.nextSlot(bed)
            let up = try Self.vote(bed, .pollVoteUp, on: poll.id, at: slot)
            let down = try Self.vote(bed, .pollVoteDown, on: poll.id, at: slot)
            await bed.mallory.node.transmit([.message(up.encoded)], to: bed.alice.identity.publicKey)
            await bed.mallory.node.transmit([.message(down.encoded)], to: bed.bob.identity.publicKey)
            try await bed.settle()
            try await Self.syncRounds(bed)

            // Then both hold a proof of her fork at that slot, and count her vote for nothing
            for peer in [bed.alice, bed.bob] {
                let forks = try peer.node.store.forks(chat: bed.invite.id)
                #expect(forks.forkedFrom == [bed.mallory.identity.publicKey: slot.sequence])
                let snapshot = try peer.node.pollSnapshot(chat: bed.invite.id, poll: poll.id)
                #expect(snapshot.tally?.up == 1 && snapshot.tally?.down == 1)
                #expect(snapshot.disputes?.voters == [bed.mallory.identity.publicKey])
                #expect(snapshot.disputes?.creatorForked == false)
                #expect(await bed.rejections(of: peer)["forkProven"] == 1)
            }
            // and each keeps the branch it stored first as evidence, beside the proof's copy of the other
            #expect(try bed.alice.node.store.message(up.id) != nil)
            #expect(try bed.bob.node.store.message(down.id) != nil)
        }
    }

    @Test func aMessageNamingAnotherBranchAsItsPreviousProvesTheFork() async throws {
        let bed = try await HostileBed.make()
        try await bed.running {
            // When mallory gives alice and bob different texts for one slot, then alice her next
            // message, which names alice's branch as its previous one
            let slot = try Self.nextSlot(bed)
            let toAlice = try Self.forged(
                bed, sequence: slot.sequence, previous: slot.previous, tag: .text, plaintext: Array("a".utf8))
            let toBob = try Self.forged(
                bed, sequence: slot.sequence, previous: slot.previous, tag: .text, plaintext: Array("b".utf8))
            let next = try Self.forged(
                bed, sequence: slot.sequence + 1, previous: toAlice.id, tag: .text, plaintext: Array("c".utf8))
            await bed.mallory.node.transmit(
                [.message(toAlice.encoded), .message(next.encoded)], to: bed.alice.identity.publicKey)
            await bed.mallory.node.transmit([.message(toBob.encoded)], to: bed.bob.identity.publicKey)
            try await bed.settle()
            try await Self.syncRounds(bed)

            // Then bob, who stores the next message through alice's sync, proves the fork too
            for peer in [bed.alice, bed.bob] {
                #expect(
                    try peer.node.store.forks(chat: bed.invite.id).forkedFrom == [
                        bed.mallory.identity.publicKey: slot.sequence
                    ])
            }
        }
    }

    @Test func twoWholeBranchesAreProvenWhereTheySplitNotAtTheirTop() async throws {
        let bed = try await HostileBed.make()
        try await bed.running {
            let poll = try await bed.alice.node.createPoll(chat: bed.invite.id, question: "Pizza?")
            try await bed.settle()

            // When mallory gives alice a batch "up, then a text" and bob "down, then another text" (each
            // vote chained under its text, the head), and neither ever gets the other's batch directly
            let slot = try Self.nextSlot(bed)
            let up = try Self.forged(
                bed, sequence: slot.sequence, previous: slot.previous, tag: .pollVoteUp,
                references: [MessageReference(id: poll.id, tag: .pollVoteUp)], head: false)
            let down = try Self.forged(
                bed, sequence: slot.sequence, previous: slot.previous, tag: .pollVoteDown,
                references: [MessageReference(id: poll.id, tag: .pollVoteDown)], head: false)
            let aboveUp = try Self.forged(
                bed, sequence: slot.sequence + 1, previous: up.id, tag: .text, plaintext: Array("a".utf8))
            let aboveDown = try Self.forged(
                bed, sequence: slot.sequence + 1, previous: down.id, tag: .text, plaintext: Array("b".utf8))
            await bed.mallory.node.transmit(
                [.message(up.encoded), .message(aboveUp.encoded)], to: bed.alice.identity.publicKey)
            await bed.mallory.node.transmit(
                [.message(down.encoded), .message(aboveDown.encoded)], to: bed.bob.identity.publicKey)
            try await bed.settle()
            // (and her own node, cut off now, cannot hand either of them the other branch)
            bed.network.conditions.partition = [
                [bed.alice.node.localAddress, bed.bob.node.localAddress], [bed.mallory.node.localAddress],
            ]
            try await Self.syncRounds(bed)

            // Then both prove the fork at the vote's slot, where the branches split, and agree on the tally
            for peer in [bed.alice, bed.bob] {
                #expect(
                    try peer.node.store.forks(chat: bed.invite.id).forkedFrom == [
                        bed.mallory.identity.publicKey: slot.sequence
                    ])
                let tally = try peer.node.pollSnapshot(chat: bed.invite.id, poll: poll.id).tally
                #expect(tally?.up == 0 && tally?.down == 0)
            }
        }
    }

    @Test func aForkOfMessagesTooBigForOneProofFrameIsProvenAndSpreadAsItsMessages() async throws {
        let bed = try await HostileBed.make()
        try await bed.running {
            // When mallory signs two 40 KB texts for one slot (a proof of both would not fit a datagram),
            // one for alice and one for bob, and then cuts herself off
            let slot = try Self.nextSlot(bed)
            let big = { (fill: UInt8) in
                try Self.forged(
                    bed, sequence: slot.sequence, previous: slot.previous, tag: .text,
                    plaintext: [UInt8](repeating: fill, count: 40_000))
            }
            let (toAlice, toBob) = (try big(0x61), try big(0x62))
            await bed.mallory.node.transmit([.message(toAlice.encoded)], to: bed.alice.identity.publicKey)
            await bed.mallory.node.transmit([.message(toBob.encoded)], to: bed.bob.identity.publicKey)
            try await bed.settle()
            bed.network.conditions.partition = [
                [bed.alice.node.localAddress, bed.bob.node.localAddress], [bed.mallory.node.localAddress],
            ]
            try await Self.syncRounds(bed)

            // Then both still prove it: the proof travels as the two messages, from which each makes its own
            for peer in [bed.alice, bed.bob] {
                #expect(
                    try peer.node.store.forks(chat: bed.invite.id).forkedFrom == [
                        bed.mallory.identity.publicKey: slot.sequence
                    ])
            }
        }
    }

    @Test func aProofWhoseBranchEndsAtTheLastSequenceIsRefusedWithoutATrap() throws {
        let mallory = try Identity.generate()
        let chat = try ChatID(rawRepresentation: [UInt8](repeating: 7, count: 32))
        func message(_ sequence: UInt64, previous: MessageID?, head: Bool) throws -> Message {
            let chained = try MessageDraft(
                chat: chat, author: mallory.publicKey, sequence: sequence, previous: previous, lamport: 1,
                timestampMillis: 0, tag: .text,
                content: [1]
            ).chained()
            return head ? try chained.signedAsHead(by: mallory) : chained
        }
        let last = try message(.max, previous: nil, head: false)
        let wrapped = try message(5, previous: last.id, head: true)
        #expect(throws: CoreError.self) {
            try ForkProof(first: [last, wrapped], second: [try message(1, previous: nil, head: true)])
        }
        #expect(throws: CoreError.self) {
            try ForkProof(first: [try message(.max, previous: nil, head: true)], second: [wrapped])
        }
    }

    @Test func aForkedCloseLeavesThePollDisputedOnEveryNode() async throws {
        let bed = try await HostileBed.make()
        try await bed.running {
            // Given mallory's poll, with alice's up vote and bob's down vote
            let poll = try await bed.mallory.node.createPoll(chat: bed.invite.id, question: "Lake?")
            try await bed.settle()
            let aliceVote = try await bed.alice.node.postVote(chat: bed.invite.id, poll: poll.id, choices: ["up"])
            _ = try await bed.bob.node.postVote(chat: bed.invite.id, poll: poll.id, choices: ["down"])
            try await bed.settle()

            // When she closes it twice in one slot: for alice covering only alice's vote, for bob covering nothing
            let slot = try Self.nextSlot(bed)
            let alice = bed.alice.identity.publicKey
            let covering = PollCoverage(holdings: [alice: .contiguous(aliceVote.message.sequence)]).encoded()
            let closeA = try Self.forged(
                bed, sequence: slot.sequence, previous: slot.previous, tag: .pollClose,
                references: [MessageReference(id: poll.id, tag: .pollClose)],
                plaintext: covering)
            let closeB = try Self.forged(
                bed, sequence: slot.sequence, previous: slot.previous, tag: .pollClose,
                references: [MessageReference(id: poll.id, tag: .pollClose)],
                plaintext: PollCoverage(holdings: [:]).encoded())
            await bed.mallory.node.transmit([.message(closeA.encoded)], to: alice)
            await bed.mallory.node.transmit([.message(closeB.encoded)], to: bed.bob.identity.publicKey)
            try await bed.settle()
            try await Self.syncRounds(bed)

            // Then neither close counts: the poll is disputed, the open tally the same on both
            var views: [PollSnapshot] = []
            for peer in [bed.alice, bed.bob] {
                let snapshot = try peer.node.pollSnapshot(chat: bed.invite.id, poll: poll.id)
                #expect(snapshot.phase == .disputed)
                #expect(snapshot.disputes?.creatorForked == true)
                #expect(snapshot.tally?.up == 1 && snapshot.tally?.down == 1)
                views.append(snapshot)
            }
            #expect(views[0].tally?.ballots == views[1].tally?.ballots)
            // and a vote on it is refused with a reason
            await #expect(throws: NodeError.self) {
                try await bed.alice.node.postVote(chat: bed.invite.id, poll: poll.id, choices: ["down"])
            }
        }
    }

    @Test func aForkedBallotKeyLeavesASecretPollCountedAlikeOnEveryNode() async throws {
        // carol makes the three electors besides the creator that a secret poll needs
        let bed = try await HostileBed.make(others: 1)
        try await bed.running {
            let chat = bed.invite.id
            // Given mallory, whose node does not publish its ballot key by itself (she publishes by hand)
            bed.mallory.node.secretBallots.notePublishedKey(in: chat)

            // When she signs her real ballot key K1 for alice and another key K2 for bob, in the same slot
            let slot = try Self.nextSlot(bed)
            let k1 = try bed.mallory.node.ballotKeyPair(chat: chat).publicKey
            let k2 = try BallotKeyPair(identity: Identity.generate(), chat: chat.rawRepresentation).publicKey
            let toAlice = try Self.forged(
                bed, sequence: slot.sequence, previous: slot.previous, tag: .ballotKey, plaintext: k1.rawRepresentation)
            let toBob = try Self.forged(
                bed, sequence: slot.sequence, previous: slot.previous, tag: .ballotKey, plaintext: k2.rawRepresentation)
            await bed.mallory.node.transmit([.message(toAlice.encoded)], to: bed.alice.identity.publicKey)
            await bed.mallory.node.transmit([.message(toBob.encoded)], to: bed.bob.identity.publicKey)
            try await bed.settle()
            try await bed.alice.node.prepareSecretPolls(chat: chat)
            try await bed.settle()

            // and alice posts a secret poll, whose electorate lists mallory with K1, and everyone votes
            let closes = bed.clock.wallMillis + 60_000
            let created = try await bed.alice.node.createSecretPoll(
                chat: chat, question: .yesNo("Raise dues?"), closesAtMillis: closes)
            let poll = created.poll.id
            let secret = try #require(try ParleyCore.Poll(created.poll.message).secret)
            #expect(secret.electorate.first { $0.member == bed.mallory.identity.publicKey }?.key == k1)
            #expect(secret.electorate.count == 4)
            try await bed.settle()
            _ = try await bed.alice.node.castSecretBallot(chat: chat, poll: poll, choices: ["up"])
            _ = try await bed.bob.node.castSecretBallot(chat: chat, poll: poll, choices: ["down"])
            _ = try await bed.mallory.node.castSecretBallot(chat: chat, poll: poll, choices: ["up"])
            try await Self.syncRounds(bed)

            // and the closing time, the publishing time and the release window pass
            try await bed.pump.advance(by: .seconds(60), step: .milliseconds(500))
            try await bed.pump.advance(by: .seconds(40), step: .milliseconds(500))
            try await bed.settle()

            // Then both hold the proof of her fork, and count the poll alike: closed, up 2, down 1, no electorate problem
            var tallies: [SecretTally] = []
            for peer in [bed.alice, bed.bob] {
                #expect(
                    try peer.node.store.forks(chat: chat).forkedFrom == [bed.mallory.identity.publicKey: slot.sequence])
                let snapshot = try peer.node.pollSnapshot(chat: chat, poll: poll)
                let tally = try #require(snapshot.secret?.tally)
                #expect(tally.electorateProblem == nil)
                #expect(snapshot.phase == .closed)
                #expect(snapshot.tally.map { [$0.up, $0.down] } == [2, 1])
                #expect(tally.counted == 3 && tally.rejected == 0 && tally.conflicting == 0)
                tallies.append(tally)
            }
            #expect(tallies[0].counts == tallies[1].counts && tallies[0].countedTags == tallies[1].countedTags)
            #expect(tallies[0].close == tallies[1].close)
        }
    }
}
