import ParleyCore
import Testing

/// The one rule every front end draws a poll's bars by (`PollBar`).
struct PollBarsTests {
    @Test func aOneToOneYesNoPollIsTwoHalfBarsAndNoWinnerEvenOnceClosed() {
        for closed in [false, true] {
            let bars = PollBar.bars(counts: [("up", 1), ("down", 1)], ballots: 2, closed: closed)
            #expect(bars.map(\.share) == [0.5, 0.5])
            #expect(bars.allSatisfy { !$0.winner })
        }
    }

    @Test func theLeaderOfAnOpenPollIsNotStarredUntilItCloses() {
        let counts = [(choice: "up", votes: 3), (choice: "down", votes: 1)]
        #expect(PollBar.bars(counts: counts, ballots: 4, closed: false).map(\.winner) == [false, false])
        #expect(PollBar.bars(counts: counts, ballots: 4, closed: true).map(\.winner) == [true, false])
        #expect(PollBar.bars(counts: counts, ballots: 4, closed: true).map(\.share) == [0.75, 0.25])
    }

    @Test func aTieAtTheTopOfAnOptionsPollStarsNoneAndASoleLeaderIsStarred() {
        let tie = PollBar.bars(counts: [("1", 2), ("2", 2), ("3", 1)], ballots: 3, closed: true)
        #expect(tie.allSatisfy { !$0.winner })
        let lead = PollBar.bars(counts: [("1", 2), ("2", 1), ("3", 1)], ballots: 3, closed: true)
        #expect(lead.map(\.winner) == [true, false, false])
    }

    @Test func sharesAreOfTheBallotsSoSeveralChoicesPerBallotAddUpToMoreThanOne() {
        // Two ballots, each of two options: Lake on both, Hills and Town on one each
        let bars = PollBar.bars(counts: [("Lake", 2), ("Hills", 1), ("Town", 1)], ballots: 2, closed: false)
        #expect(bars.map(\.share) == [1, 0.5, 0.5])
    }

    @Test func aPollNobodyVotedOnHasEmptyBarsAndNoWinner() {
        let bars = PollBar.bars(counts: [("up", 0), ("down", 0)], ballots: 0, closed: true)
        #expect(bars.map(\.share) == [0, 0] && bars.allSatisfy { !$0.winner })
    }
}
