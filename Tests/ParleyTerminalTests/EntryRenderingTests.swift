import Testing
import ParleyTerminal

/// Messages, reactions, polls, members and the typing line, drawn into small frames.
struct EntryRenderingTests {
    /// The message pane of a 40×10 frame (no side panes below 60 columns).
    func messageRows(_ entries: [ScreenState.Entry], width: Int = 40, height: Int = 10) -> [String] {
        let lines = Fixtures.lines(ScreenState(entries: entries), width: width, height: height)
        return Array(lines[1..<(height - 3)]).filter { !$0.isEmpty }
    }

    @Test func aLongMessageWrapsAtWordsWithContinuationLinesIndented() {
        let text = "this message is much too long to fit on one line of the pane and goes on"
        let rows = messageRows([.message(ScreenState.Message(author: "alice", text: text))], width: 30)
        #expect(
            rows == [
                "alice: this message is much",
                "  too long to fit on one line",
                "  of the pane and goes on",
            ])
    }

    @Test func aWordLongerThanTheLineIsBrokenWhereTheLineEnds() {
        let rows = messageRows(
            [.message(ScreenState.Message(author: "bo", text: String(repeating: "x", count: 45)))], width: 20)
        #expect(
            rows == [
                "bo: " + String(repeating: "x", count: 16), "  " + String(repeating: "x", count: 18),
                "  " + String(repeating: "x", count: 11),
            ])
    }

    @Test func newlinesAndControlCharactersCannotEscapeThePane() {
        let rows = messageRows([.message(ScreenState.Message(author: "eve", text: "one\ntwo\u{1B}[2J"))])
        #expect(rows == ["eve: one", "  two\u{FFFD}[2J"])
    }

    @Test func reactionsAreShownUnderTheirMessageAndWrapWhenMany() {
        let reactions = [
            ScreenState.Reaction(emoji: "👍", count: 2, mine: true), ScreenState.Reaction(emoji: "🎉", count: 1),
            ScreenState.Reaction(emoji: "❤️", count: 12),
        ]
        #expect(
            messageRows([.message(ScreenState.Message(author: "alice", text: "done", reactions: reactions))]) == [
                "alice: done",
                "  👍 2 🎉 1 ❤️ 12",
            ])
        #expect(
            messageRows([.message(ScreenState.Message(author: "alice", text: "done", reactions: reactions))], width: 12)
                == [
                    "alice: done",
                    "  👍 2 🎉 1",
                    "  ❤️ 12",
                ])
    }

    @Test func ownReactionsAreHighlighted() {
        let message = ScreenState.Message(
            author: "a", text: "x",
            reactions: [
                ScreenState.Reaction(emoji: "+", count: 1, mine: true),
                ScreenState.Reaction(emoji: "-", count: 1),
            ])
        let grid = ScreenRenderer.render(ScreenState(entries: [.message(message)]), width: 40, height: 10).grid
        let row = 6 // the reactions line sits right above the typing line (row 7)
        #expect(grid[row, 2].text == "+" && grid[row, 2].style.bold)
        #expect(grid[row, 6].text == "-" && !grid[row, 6].style.bold)
    }

    @Test func aPollCardShowsBarsCountsOwnVotesWinnersAndItsState() {
        let poll = ScreenState.PollCard(
            id: "565e1db6", author: "bob", question: "Tea or coffee?", isClosed: true,
            options: [
                ScreenState.PollOption(label: "Tea", votes: 1, share: 0.25),
                ScreenState.PollOption(label: "Coffee", votes: 3, share: 0.75, mine: true, winner: true),
                ScreenState.PollOption(label: "Nothing", votes: 0, share: 0),
            ],
            summary: "4 votes · 1 answer")
        #expect(
            messageRows([.poll(poll)], width: 44) == [
                "▌ Poll 565e1db6 · bob: Tea or coffee?",
                "▌   [closed]",
                "▌  Tea     ████············ 1 25%",
                "▌ *Coffee  ████████████···· 3 75% ★",
                "▌  Nothing ················ 0  0%",
                "▌ 4 votes · 1 answer",
            ])
    }

    @Test func aOneToOneYesNoPollIsTwoHalfBarsNotTwoFullOnes() {
        // Bars fill to the share (`PollBar`), as the page draws them, never to the leader's count
        let poll = ScreenState.PollCard(
            id: "565e1db6", author: "bob", question: "Pizza?",
            options: [
                ScreenState.PollOption(label: "up", votes: 1, share: 0.5),
                ScreenState.PollOption(label: "down", votes: 1, share: 0.5),
            ],
            summary: "")
        #expect(
            messageRows([.poll(poll)], width: 40) == [
                "▌ Poll 565e1db6 · bob: Pizza?",
                "▌  up   ████████········ 1 50%",
                "▌  down ████████········ 1 50%",
            ])
    }

    @Test func membersShowOnlineAndOfflineMarkersAndWhenLastSeen() {
        let state = ScreenState(members: [
            ScreenState.Member(name: "alice", presence: .online),
            ScreenState.Member(name: "bob", presence: .offline(lastSeen: "09:15")),
            ScreenState.Member(name: "carol", presence: .offline(lastSeen: nil)),
            ScreenState.Member(name: "dave"),
        ])
        let lines = Fixtures.lines(state, width: 80, height: 10)
        let pane = lines[1...5].map { String($0.dropFirst(63)) }
        #expect(pane == ["│ ● alice", "│ ○ bob", "│   seen 09:15", "│ ○ carol", "│   dave"])
        #expect(lines[0].hasSuffix("Members (4)"))
    }

    @Test(arguments: [
        ([String](), ""),
        (["alice"], "alice is typing…"),
        (["alice", "bob"], "alice and bob are typing…"),
        (["alice", "bob", "carol"], "alice, bob and carol are typing…"),
        (["alice", "bob", "carol", "dave", "erin"], "alice, bob and 3 others are typing…"),
    ])
    func theTypingLineNamesWhoIsTyping(names: [String], expected: String) {
        #expect(ScreenRenderer.typingText(names) == expected)
        let typingRow = Fixtures.lines(ScreenState(typing: names), width: 80, height: 24)[21]
        #expect(typingRow == (expected.isEmpty ? "" : " " + expected))
    }

    @Test func scrollingBackShowsOlderLinesAndSaysWhenTheTopIsReached() {
        let entries = (1...30).map { ScreenState.Entry.message(ScreenState.Message(author: "a", text: "m\($0)")) }
        let bottom = ScreenRenderer.render(ScreenState(entries: entries), width: 40, height: 10)
        #expect(bottom.messageLines == 30 && bottom.messageRows == 6 && !bottom.showsTop)
        #expect(bottom.grid.plainText.contains("a: m30") && !bottom.grid.plainText.contains("a: m24\n"))
        let back = ScreenRenderer.render(ScreenState(entries: entries, scroll: 10), width: 40, height: 10)
        #expect(back.grid.plainText.contains("a: m20") && !back.grid.plainText.contains("a: m21"))
        let top = ScreenRenderer.render(ScreenState(entries: entries, scroll: 1_000), width: 40, height: 10)
        #expect(top.scroll == 24 && top.showsTop && top.grid.plainText.contains("a: m1\n"))
    }

    @Test func theSelectedChatIsMarkedAndUnreadCountsShown() {
        let state = ScreenState(
            chats: [ScreenState.Chat(title: "Lunch"), ScreenState.Chat(title: "A very long chat title", unread: 12)],
            selectedChat: 1, focus: .chats)
        let rendered = ScreenRenderer.render(state, width: 80, height: 24)
        let lines = rendered.grid.plainText.split(separator: "\n").map(String.init)
        #expect(lines[1].hasPrefix("  Lunch "))
        #expect(lines[2].hasPrefix("› A very long… 12 │"))
        #expect(rendered.grid[2, 5].style.reverse)
        #expect(rendered.cursor == nil) // the chat pane has the focus: no text cursor
    }
}
