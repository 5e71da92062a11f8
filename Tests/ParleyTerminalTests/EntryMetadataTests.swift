import Testing
import ParleyTerminal

/// What lets a user target any entry and follow a conversation: each entry's time and short id,
/// own messages' delivery ticks, the quote over a reply, and notices such as a poll's full results.
struct EntryMetadataTests {
    /// The message pane of a frame narrower than 60 columns (no side panes), blank rows dropped.
    func messageRows(_ entries: [ScreenState.Entry], width: Int = 44, height: Int = 12) -> [String] {
        let lines = Fixtures.lines(ScreenState(entries: entries), width: width, height: height)
        return Array(lines[1..<(height - 3)]).filter { !$0.isEmpty }
    }

    @Test func everyMessageStartsWithItsTimeAndShortIdAndOwnOnesEndWithTheirTicks() {
        // Given a message from alice and an own one that every member read
        let entries: [ScreenState.Entry] = [
            .message(ScreenState.Message(author: "alice", text: "lunch?", id: "1a2b3c4d", time: "12:05")),
            .message(
                ScreenState.Message(
                    author: "you", text: "yes", isOwn: true, id: "5e6f7a8b", time: "12:06", delivery: "✓✓ read")),
        ]
        // When they are drawn, then the time and id come first and the ticks after the own text only
        #expect(
            messageRows(entries) == [
                "12:05 1a2b3c4d alice: lunch?",
                "12:06 5e6f7a8b you: yes ✓✓ read",
            ])
    }

    @Test func ticksThatDoNotFitAfterTheTextGoOnALineOfTheirOwn() {
        // Given an own message whose text fills the first line of a 30-column pane
        let message = ScreenState.Message(
            author: "you", text: "abcdefghi", isOwn: true, id: "5e6f7a8b", time: "12:06", delivery: "✓✓ 1/2")
        // Then the ticks are not cut: they go on the next line, indented as a continuation
        #expect(messageRows([.message(message)], width: 30) == ["12:06 5e6f7a8b you: abcdefghi", "  ✓✓ 1/2"])
    }

    @Test func inAPaneTooNarrowForThemTheTimeAndIdGiveWayToTheText() {
        let message = ScreenState.Message(author: "alice", text: "lunch at noon?", id: "1a2b3c4d", time: "12:05")
        #expect(messageRows([.message(message)], width: 28) == ["alice: lunch at noon?"])
        #expect(messageRows([.message(message)], width: 30) == ["12:05 1a2b3c4d alice: lunch at", "  noon?"])
    }

    @Test func aReplyIsDrawnUnderAQuoteOfTheMessageItAnswers() {
        // Given a reply whose quote is longer than the pane
        let quote = "↳ alice: who is in for lunch tomorrow at noon, and where shall we go?"
        let reply = ScreenState.Message(
            author: "you", text: "me", isOwn: true, id: "5e6f7a8b", time: "12:06", quote: quote)
        // Then the quote sits above it on one line, cut to the pane
        let rows = messageRows([.message(reply)], width: 40)
        #expect(rows == ["  ↳ alice: who is in for lunch tomorrow…", "12:06 5e6f7a8b you: me"])
    }

    @Test func aPollCardHeaderStartsWithTheTimeItWasPosted() {
        let poll = ScreenState.PollCard(
            id: "565e1db6", author: "bob", question: "Tea?",
            options: [ScreenState.PollOption(label: "up", votes: 0, share: 0)],
            summary: "0 votes", time: "09:30")
        #expect(messageRows([.poll(poll)]).first == "▌ 09:30 Poll 565e1db6 · bob: Tea?")
    }

    @Test func aNoticeShowsItsLinesAsWrittenBehindAnEdgeWrappingLongOnes() {
        // Given the results lines of a poll, one longer than the pane
        let notice = ScreenState.Entry.notice([
            "poll 565e1db6 by bob: Tea?", "  *[1] Tea", "   [2] Coffee", "  voters: alice up, bob down, carol up",
        ])
        // Then each is behind the edge with its own indentation, the long one wrapped with its continuation indented further
        #expect(
            messageRows([notice], width: 30) == [
                "┆ poll 565e1db6 by bob: Tea?",
                "┆   *[1] Tea",
                "┆    [2] Coffee",
                "┆   voters: alice up, bob",
                "┆     down, carol up",
            ])
    }
}
