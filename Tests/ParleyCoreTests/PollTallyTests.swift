import ParleyCore
import ParleyCrypto
import Testing

struct PollTallyTests {
    let poll: Message

    init() throws { poll = try Fixtures.message(Fixtures.alice, seq: 1, lamport: 1, tag: .poll, text: "Pizza?") }

    @Test func countsOneVotePerAuthor() throws {
        let votes = [
            try Fixtures.vote(Fixtures.alice, .up, on: poll, seq: 2, lamport: 2),
            try Fixtures.vote(Fixtures.bob, .up, on: poll, seq: 1, lamport: 3),
            try Fixtures.vote(Fixtures.carol, .down, on: poll, seq: 1, lamport: 3),
        ]
        let tally = PollRules.tally(poll: poll, candidates: votes)
        #expect((tally.up, tally.down) == (2, 1))
        #expect(tally.choice(of: Fixtures.carol.publicKey) == .down)
    }

    @Test func aHostileFloodCountsOnceAsTheLatestVote() throws {
        // Given mallory sends 1,000 votes, the last (highest Lamport) one down
        var votes = try (1...999).map { try Fixtures.vote(Fixtures.mallory, .up, on: poll, seq: UInt64($0), lamport: UInt64($0)) }
        votes.append(try Fixtures.vote(Fixtures.mallory, .down, on: poll, seq: 1000, lamport: 5000))
        // When tallied in any order
        let forward = PollRules.tally(poll: poll, candidates: votes)
        let backward = PollRules.tally(poll: poll, candidates: votes.reversed())
        // Then mallory counts once, as down, and order does not matter
        #expect((forward.up, forward.down) == (0, 1))
        #expect(forward == backward)
    }

    @Test func equalLamportClocksFallBackToTheAuthorsSequence() throws {
        // Given bob's clock saturated: two votes with the same Lamport, the later one down
        let first = try Fixtures.vote(Fixtures.bob, .up, on: poll, seq: 1, lamport: UInt64(Int64.max))
        let second = try Fixtures.vote(Fixtures.bob, .down, on: poll, seq: 2, lamport: UInt64(Int64.max))
        // Then the later sequence wins, in either order
        #expect(PollRules.tally(poll: poll, candidates: [first, second]).choice(of: Fixtures.bob.publicKey) == .down)
        #expect(PollRules.tally(poll: poll, candidates: [second, first]).choice(of: Fixtures.bob.publicKey) == .down)
    }

    @Test func anEquivocatingAuthorResolvesByMessageIdTheSameEverywhere() throws {
        // Given two different votes with the same sequence and clock (only a hostile author makes these)
        let a = try Fixtures.vote(Fixtures.mallory, .up, on: poll, seq: 1, lamport: 7)
        let b = try Fixtures.vote(Fixtures.mallory, .down, on: poll, seq: 1, lamport: 7)
        let expected: VoteChoice = a.id > b.id ? .up : .down
        #expect(PollRules.tally(poll: poll, candidates: [a, b]).choice(of: Fixtures.mallory.publicKey) == expected)
        #expect(PollRules.tally(poll: poll, candidates: [b, a]).choice(of: Fixtures.mallory.publicKey) == expected)
    }

    @Test func votesOnAMessageThatIsNotAPollCountNowhere() throws {
        let text = try Fixtures.message(Fixtures.alice, seq: 1, lamport: 1, text: "not a poll")
        let vote = try Fixtures.vote(Fixtures.bob, .up, on: text, seq: 1, lamport: 2)
        let tally = PollRules.tally(poll: text, candidates: [vote])
        #expect((tally.up, tally.down, tally.ballots.count) == (0, 0, 0))
    }

    @Test func aReferenceMustCarryTheVotesTag() throws {
        // A "PollVoteUp" whose reference says "PollVoteDown" is not a vote.
        let mismatched = try Fixtures.message(
            Fixtures.bob, seq: 1, lamport: 2, tag: .pollVoteUp, refs: [MessageReference(id: poll.id, tag: .pollVoteDown)])
        let unrelated = try Fixtures.message(Fixtures.carol, seq: 1, lamport: 2, tag: .text, refs: [MessageReference(id: poll.id, tag: .text)])
        #expect(PollRules.tally(poll: poll, candidates: [mismatched, unrelated]).ballots.isEmpty)
    }

    @Test func votesFromAnotherChatDoNotCount() throws {
        let elsewhere = try ChatInvite.create(by: Fixtures.bob, title: "Other", members: [], createdAtMillis: 0)
        let vote = try Fixtures.message(
            Fixtures.bob, seq: 1, lamport: 2, tag: .pollVoteUp, refs: [MessageReference(id: poll.id, tag: .pollVoteUp)], chat: elsewhere.id)
        #expect(PollRules.tally(poll: poll, candidates: [vote]).ballots.isEmpty)
    }

    @Test func aLaterVoteReplacesAnEarlierOneAndDuplicatesAreHarmless() throws {
        let first = try Fixtures.vote(Fixtures.bob, .up, on: poll, seq: 1, lamport: 2)
        let second = try Fixtures.vote(Fixtures.bob, .down, on: poll, seq: 2, lamport: 9)
        let tally = PollRules.tally(poll: poll, candidates: [second, first, first, second])
        #expect((tally.up, tally.down) == (0, 1))
    }

    @Test func openBallotsAreTheTallyUntilTheCreatorClosesThePoll() throws {
        // Given bob voted up then down, carol up, and each author's latest vote as the open ballots
        let bobEarlier = try Fixtures.vote(Fixtures.bob, .up, on: poll, seq: 1, lamport: 2)
        let bobLater = try Fixtures.vote(Fixtures.bob, .down, on: poll, seq: 2, lamport: 9)
        let carol = try Fixtures.vote(Fixtures.carol, .up, on: poll, seq: 1, lamport: 3)
        let closeReference = [MessageReference(id: poll.id, tag: .pollClose)]
        let bobsClose = try Fixtures.message(Fixtures.bob, seq: 3, lamport: 5, tag: .pollClose, refs: closeReference)
        let creatorsClose = try Fixtures.message(Fixtures.alice, seq: 2, lamport: 5, tag: .pollClose, refs: closeReference)

        // Then while only others have closed it, the ballots are the tally of every vote
        let open = PollRules.tally(poll: poll, openBallots: [bobLater, carol], closes: [bobsClose])
        #expect(open == PollRules.tally(poll: poll, candidates: [bobEarlier, bobLater, carol, bobsClose]))
        // And once its creator closed it, bob's ballot is his vote before the close, which they do not hold
        #expect(PollRules.tally(poll: poll, openBallots: [bobLater, carol], closes: [creatorsClose]) == nil)
        #expect(PollRules.tally(poll: poll, candidates: [bobEarlier, bobLater, carol, creatorsClose]).choice(of: Fixtures.bob.publicKey) == .up)
    }
}
