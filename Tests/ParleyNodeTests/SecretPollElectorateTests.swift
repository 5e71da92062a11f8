import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Testing

/// Finding 2 of issue 34: the creator chooses the ring. A secret poll counts, and takes ballots,
/// only if its electorate are members of the chat when it was posted, with keys they published, and
/// at least three of them besides the creator; every node decides it alike, and shows the voter how
/// many members its vote hides among before it casts.
struct SecretPollElectorateTests {
    /// A chat of all the bed's peers ready for a secret poll, and its current electorate, which
    /// lists every one of them.
    private static func chatListingEveryone(_ bed: PumpedPeers) async throws -> (
        chat: ChatID, electors: [SecretPoll.Elector]
    ) {
        let chat = try await bed.secretPollChat()
        let electors = try bed.peers[0].node.currentElectorate(chat: chat).electors
        #expect(electors.count == bed.peers.count)
        return (chat, electors)
    }

    /// What a modified creator's node (the bed's first) posts: a secret poll over exactly
    /// `electorate`, closing in a minute, past every check its own node would make; settled.
    private static func postByHand(_ bed: PumpedPeers, chat: ChatID, electorate: [SecretPoll.Elector]) async throws
        -> MessageID
    {
        let secret = try SecretPoll(
            question: .yesNo("Raise dues?"), closesAtMillis: bed.clock.wallMillis + 60_000, electorate: electorate)
        let poll = try await bed.peers[0].node.send(chat: chat, tag: .poll, content: try secret.encoded()).id
        try await bed.settle()
        return poll
    }

    /// `voter`'s node refusing to cast on `poll` for its electorate: the error it threw.
    @discardableResult
    private static func refusedCast(by voter: PumpedPeers.Peer, chat: ChatID, poll: MessageID) async -> NodeError? {
        let refusal = await #expect(throws: NodeError.self) {
            try await voter.node.castSecretBallot(chat: chat, poll: poll, choices: ["up"])
        }
        #expect(refusal?.kind == .refusedElectorate)
        return refusal
    }

    @Test func aRingOfTheCreatorAnAccompliceAndOneHonestMemberIsRefusedOnEveryNodeAndTheHonestMemberCastsNothing()
        async throws
    {
        // Given alice (the creator), mallory (her accomplice) and bob, all with published ballot keys
        let bed = try await PumpedPeers.make(count: 3)
        let (alice, mallory, bob) = (bed.peers[0], bed.peers[1], bed.peers[2])
        try await bed.running {
            let (chat, electorate) = try await Self.chatListingEveryone(bed)

            // When alice's node posts a secret poll over the three of them
            let poll = try await Self.postByHand(bed, chat: chat, electorate: electorate)

            // Then bob's node refuses to cast, saying how few could hide his vote, and sends nothing
            let refusal = await Self.refusedCast(by: bob, chat: chat, poll: poll)
            #expect(refusal?.description.contains("only 2 other members could hide your vote") == true)
            #expect(refusal?.description.contains("at least 3 besides the creator") == true)
            #expect(try bob.node.store.localData(message: poll, key: LocalDataKey.secretBallot) == nil)
            // and every node shows the poll refused, with the same reason
            for peer in [alice, mallory, bob] {
                let secret = try #require(try peer.node.pollSnapshot(chat: chat, poll: poll).secret)
                #expect(secret.tally.electorateProblem == .tooFewToHide(others: 2))
                #expect(secret.hiddenAmong == 2)
            }
        }
    }

    @Test func aRingOfThreeIsRefusedForItsSizeEvenWhenTheCreatorListsItselfWithAKeyItNeverPublished() async throws {
        // Given alice (the creator), mallory (her accomplice) and bob, all with published ballot keys
        let bed = try await PumpedPeers.make(count: 3)
        let (alice, mallory, bob) = (bed.peers[0], bed.peers[1], bed.peers[2])
        try await bed.running {
            let chat = try await bed.secretPollChat()

            // When alice's node posts a secret poll over the three of them, listing alice with a made-up key
            let madeUp = try BallotKeyPair(identity: Identity.generate(), chat: chat.rawRepresentation).publicKey
            let electorate = try alice.node.currentElectorate(chat: chat).electors.map { elector in
                elector.member == alice.identity.publicKey
                    ? SecretPoll.Elector(member: elector.member, key: madeUp) : elector
            }
            let poll = try await Self.postByHand(bed, chat: chat, electorate: electorate)

            // Then every node refuses it for its size, which no key still to arrive can lift, and bob's node casts nothing
            for peer in [alice, mallory, bob] {
                let secret = try #require(try peer.node.pollSnapshot(chat: chat, poll: poll).secret)
                #expect(secret.tally.electorateProblem == .tooFewToHide(others: 2))
            }
            _ = await Self.refusedCast(by: bob, chat: chat, poll: poll)
            #expect(try bob.node.store.localData(message: poll, key: LocalDataKey.secretBallot) == nil)
        }
    }

    @Test func creatingASecretPollWhereFewerThanThreeOthersHaveKeysIsRefusedWithTheReason() async throws {
        // Given a chat of three, all with published ballot keys
        let bed = try await PumpedPeers.make(count: 3)
        let alice = bed.peers[0]
        try await bed.running {
            let chat = try await bed.secretPollChat()

            // When alice creates a secret poll, then her node refuses: only two others could hide a vote
            let refusal = await #expect(throws: NodeError.self) {
                try await alice.node.createSecretPoll(
                    chat: chat, question: .yesNo("Raise dues?"), closesAtMillis: bed.clock.wallMillis + 60_000)
            }
            #expect(refusal?.kind == .refusedElectorate)
            #expect(refusal?.description.contains("at least 3 members besides you") == true)
            #expect(refusal?.description.hasSuffix("has 2") == true)
            #expect(try alice.node.store.messages(matching: MessageCriteria(chat: chat, tag: .poll)).isEmpty)
        }
    }

    @Test func aPollListingTheKeyOfAMemberRemovedBeforeItWasPostedIsRefusedOnEveryNode() async throws {
        // Given five members with published ballot keys, and erin removed from the chat
        let bed = try await PumpedPeers.make(count: 5)
        let (alice, bob, erin) = (bed.peers[0], bed.peers[1], bed.peers[4])
        try await bed.running {
            let (chat, everyone) = try await Self.chatListingEveryone(bed)
            try await alice.node.removeMembers(chat: chat, [erin.identity.publicKey])
            try await bed.settle()

            // When alice's node posts a secret poll whose electorate still lists erin's published key
            let poll = try await Self.postByHand(bed, chat: chat, electorate: everyone)

            // Then every member's node shows it refused, naming erin, and bob's node casts nothing
            for peer in bed.peers.dropLast() {
                let secret = try #require(try peer.node.pollSnapshot(chat: chat, poll: poll).secret)
                #expect(secret.tally.electorateProblem == .notAMember(erin.identity.publicKey))
            }
            let refusal = await Self.refusedCast(by: bob, chat: chat, poll: poll)
            #expect(refusal?.description.contains("was not a member of the chat when the poll was posted") == true)
        }
    }

    @Test func aValidPollShowsEveryNodeThatAVoteHidesAmongTheElectorsBesidesTheCreator() async throws {
        // Given five members with published ballot keys
        let bed = try await PumpedPeers.make(count: 5)
        let alice = bed.peers[0]
        try await bed.running {
            let chat = try await bed.secretPollChat()

            // When alice creates a secret poll
            let created = try await alice.node.createSecretPoll(
                chat: chat, question: .yesNo("Raise dues?"), closesAtMillis: bed.clock.wallMillis + 60_000)
            try await bed.settle()

            // Then every node shows it valid, a vote hidden among the four members besides alice
            for peer in bed.peers {
                let secret = try #require(try peer.node.pollSnapshot(chat: chat, poll: created.poll.id).secret)
                #expect(secret.tally.electorateProblem == nil)
                #expect(secret.hiddenAmong == 4)
            }
        }
    }
}
