import ParleyCore
import Foundation
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
        var votes = try (1...999).map {
            try Fixtures.vote(Fixtures.mallory, .up, on: poll, seq: UInt64($0), lamport: UInt64($0))
        }
        votes.append(try Fixtures.vote(Fixtures.mallory, .down, on: poll, seq: 1000, lamport: 5000))
        // When tallied in any order
        let forward = PollRules.tally(poll: poll, candidates: votes)
        let backward = PollRules.tally(poll: poll, candidates: votes.reversed())
        // Then mallory counts once, as down, and order does not matter
        #expect((forward.up, forward.down) == (0, 1))
        #expect(forward == backward)
    }

    @Test func aBallotIsTheLatestInTheVotersOwnChainWhateverClockItClaims() throws {
        // Given bob's up vote claiming the largest clock, then his down vote claiming a small one
        let first = try Fixtures.vote(Fixtures.bob, .up, on: poll, seq: 1, lamport: UInt64(Int64.max))
        let second = try Fixtures.vote(Fixtures.bob, .down, on: poll, seq: 2, lamport: 3)
        // Then his later vote is his ballot, in either order
        #expect(PollRules.tally(poll: poll, candidates: [first, second]).choice(of: Fixtures.bob.publicKey) == .down)
        #expect(PollRules.tally(poll: poll, candidates: [second, first]).choice(of: Fixtures.bob.publicKey) == .down)
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
            Fixtures.bob, seq: 1, lamport: 2, tag: .pollVoteUp,
            refs: [MessageReference(id: poll.id, tag: .pollVoteDown)])
        let unrelated = try Fixtures.message(
            Fixtures.carol, seq: 1, lamport: 2, tag: .text, refs: [MessageReference(id: poll.id, tag: .text)])
        #expect(PollRules.tally(poll: poll, candidates: [mismatched, unrelated]).ballots.isEmpty)
    }

    @Test func votesFromAnotherChatDoNotCount() throws {
        let elsewhere = try ChatInvite.create(by: Fixtures.bob, title: "Other", members: [], createdAtMillis: 0)
        let vote = try Fixtures.message(
            Fixtures.bob, seq: 1, lamport: 2, tag: .pollVoteUp, refs: [MessageReference(id: poll.id, tag: .pollVoteUp)],
            chat: elsewhere.id)
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
        let creatorsClose = try MessageDraft(
            chat: Fixtures.invite.id, author: Fixtures.alice.publicKey, sequence: 2, lamport: 5, timestampMillis: 42,
            tag: .pollClose,
            content: PollCoverage(holdings: [
                Fixtures.bob.publicKey: .contiguous(1), Fixtures.carol.publicKey: .contiguous(1),
            ]).encoded(),
            references: closeReference
        ).signed(by: Fixtures.alice)

        // Then while only others have closed it, the ballots are the tally of every vote
        let open = PollRules.tally(poll: poll, openBallots: [bobLater, carol], closes: [bobsClose])
        #expect(open == PollRules.tally(poll: poll, candidates: [bobEarlier, bobLater, carol, bobsClose]))
        // And once its creator closed it, bob's ballot is his vote before the close, which they do not hold
        #expect(PollRules.tally(poll: poll, openBallots: [bobLater, carol], closes: [creatorsClose]) == nil)
        #expect(
            PollRules.tally(poll: poll, candidates: [bobEarlier, bobLater, carol, creatorsClose]).choice(
                of: Fixtures.bob.publicKey) == .up)
    }
}

/// A close says which ballots it covers; claimed clocks cannot get a ballot in after it.
struct PollCloseTests {
    let poll = (try? Fixtures.message(Fixtures.alice, seq: 1, lamport: 1, tag: .poll, text: "Pizza?"))!

    func close(covering holdings: [PeerID: AuthorHoldings], seq: UInt64 = 2, lamport: UInt64) throws -> Message {
        try MessageDraft(
            chat: Fixtures.invite.id, author: Fixtures.alice.publicKey, sequence: seq, lamport: lamport,
            timestampMillis: 42, tag: .pollClose,
            content: PollCoverage(holdings: holdings).encoded(),
            references: [MessageReference(id: poll.id, tag: .pollClose)]
        ).signed(by: Fixtures.alice)
    }

    @Test func aBackdatedVoteAfterTheCloseDoesNotFlipTheTally() throws {
        // Given bob voted down and alice closed the poll holding it, at a large clock
        let down = try Fixtures.vote(Fixtures.bob, .down, on: poll, seq: 1, lamport: 2)
        let close = try close(covering: [Fixtures.bob.publicKey: .contiguous(1)], lamport: 1_000_000_000_002)
        // When bob then votes up claiming a clock just below the close's
        let backdated = try Fixtures.vote(Fixtures.bob, .up, on: poll, seq: 2, lamport: 1_000_000_000_001)

        // Then the tally stays down 1, final, and bob's latest ballot is known to be after the close
        let tally = PollRules.tally(poll: poll, candidates: [down, close, backdated])
        #expect(tally.up == 0 && tally.down == 1 && tally.closed)
        #expect(tally.lateVoters == [Fixtures.bob.publicKey])
        // And a voter the close does not list at all counts nowhere
        let carol = try Fixtures.vote(Fixtures.carol, .up, on: poll, seq: 1, lamport: 3)
        #expect(PollRules.tally(poll: poll, candidates: [down, close, backdated, carol]).up == 0)
    }

    @Test func aCloseWithoutACoverageIsNoCloseWhateverItsClock() throws {
        // Given the creator's close with an empty plaintext (as nodes sent before closes carried a
        // coverage, and as a member sees one it holds no key for), and votes on both sides of its clock
        let empty = try Fixtures.message(
            Fixtures.alice, seq: 2, lamport: 5, tag: .pollClose, refs: [MessageReference(id: poll.id, tag: .pollClose)])
        let below = try Fixtures.vote(Fixtures.bob, .up, on: poll, seq: 1, lamport: 4)
        let above = try Fixtures.vote(Fixtures.carol, .up, on: poll, seq: 1, lamport: 5)
        // Then it closes nothing: no clock decides which ballots count
        let tally = PollRules.tally(poll: poll, candidates: [empty, below, above])
        #expect(tally.up == 2 && !tally.closed)
    }

    @Test func aSecondCloseWithALowerClockChangesNothingAndIsCounted() throws {
        // Given bob's up vote and carol's down vote, both inside alice's close
        let up = try Fixtures.vote(Fixtures.bob, .up, on: poll, seq: 1, lamport: 2)
        let down = try Fixtures.vote(Fixtures.carol, .down, on: poll, seq: 1, lamport: 3)
        let first = try close(
            covering: [Fixtures.bob.publicKey: .contiguous(1), Fixtures.carol.publicKey: .contiguous(1)], seq: 2,
            lamport: 9)
        // When alice closes again, later in her chain, covering only bob and claiming a lower clock
        let second = try close(covering: [Fixtures.bob.publicKey: .contiguous(1)], seq: 3, lamport: 4)

        // Then the first close still decides, in any order, and the second is counted
        for candidates in [[up, down, first, second], [second, down, up, first]] {
            let tally = PollRules.tally(poll: poll, candidates: candidates)
            #expect((tally.up, tally.down) == (1, 1))
            #expect(tally.close?.message == first.id && tally.close?.laterCloses == 1)
        }
    }

    @Test func theEarliestValidCloseOfTheCreatorWins() throws {
        let vote = try Fixtures.vote(Fixtures.bob, .up, on: poll, seq: 1, lamport: 2)
        let coversBob = try close(covering: [Fixtures.bob.publicKey: .contiguous(1)], seq: 3, lamport: 9)
        let coversNobody = try close(covering: [:], seq: 2, lamport: 8)
        #expect(PollRules.tally(poll: poll, candidates: [vote, coversBob, coversNobody]).up == 0)
        #expect(PollRules.winningClose(of: poll, among: [coversBob, coversNobody])?.message == coversNobody.id)
    }

    @Test func coverageRoundTripsAndRefusesBadEncodings() throws {
        let coverage = PollCoverage(holdings: [
            Fixtures.bob.publicKey: try AuthorHoldings(highest: 8, missing: [3...3, 6...7]),
            Fixtures.carol.publicKey: .contiguous(2),
        ])
        #expect(try PollCoverage.decode(coverage.encoded()) == coverage)
        #expect(coverage.covers(author: Fixtures.bob.publicKey, sequence: 5))
        #expect(!coverage.covers(author: Fixtures.bob.publicKey, sequence: 6))
        #expect(!coverage.covers(author: Fixtures.bob.publicKey, sequence: 9))
        #expect(!coverage.covers(author: Fixtures.alice.publicKey, sequence: 1))
        #expect(throws: CoreError.self) { try PollCoverage.decode([]) }
        #expect(throws: CoreError.self) { try PollCoverage.decode([2, 0, 0]) }
        #expect(throws: CoreError.self) { try PollCoverage.decode(coverage.encoded() + [0]) }
        #expect(throws: CoreError.self) { try PollCoverage.decode(Array(coverage.encoded().dropLast())) }
    }

    @Test func coverageThatDoesNotFitClaimsOnlyGaplessPrefixes() throws {
        let gaps: [ClosedRange<UInt64>] = (0..<16).map { (index: UInt64) in (index * 6 + 2)...(index * 6 + 3) }
        let gappy = try AuthorHoldings(highest: 100, missing: gaps)
        let holdings: [PeerID: AuthorHoldings] = [
            Fixtures.bob.publicKey: gappy, Fixtures.carol.publicKey: .contiguous(4),
        ]
        let fitted = try PollCoverage.fitting(holdings, maxBytes: 3 + 2 * 41)
        #expect(fitted.holdings[Fixtures.bob.publicKey] == AuthorHoldings.contiguous(1))
        #expect(fitted.holdings[Fixtures.carol.publicKey] == AuthorHoldings.contiguous(4))
        #expect(throws: CoreError.self) { try PollCoverage.fitting(holdings, maxBytes: 40) }
    }

    /// PROTOCOL §13 vector: alice's close covering bob 1…8 without 3 and 6…7, and carol 1…2.
    @Test func closeContentVector() throws {
        let coverage = PollCoverage(holdings: [
            Fixtures.bob.publicKey: try AuthorHoldings(highest: 8, missing: [3...3, 6...7]),
            Fixtures.carol.publicKey: .contiguous(2),
        ])
        let hex = coverage.encoded().map { String(format: "%02x", $0) }.joined()
        #expect(
            hex == "0100028139770ea87d175f56a35466c34c7ecccb8d8a91b4ee37a25df60f5b8fc9b394000000000000000802"
                + "000000000000000300000000000000030000000000000006000000000000000"
                + "7ed4928c628d1c2c6eae90338905995612959273a5c63f93636c14614ac8737d1000000000000000200")
    }
}
