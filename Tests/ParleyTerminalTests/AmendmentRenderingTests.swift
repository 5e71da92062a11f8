import Testing
@testable import ParleyTerminal

/// Edited, deleted, pinned and replied-to messages, mentions, the pinned bar and a thread's header.
struct AmendmentRenderingTests {
    func rendered(_ state: ScreenState, width: Int = 44, height: Int = 12) -> RenderedScreen {
        ScreenRenderer.render(state, width: width, height: height)
    }

    /// The message pane of a frame narrower than 60 columns (no side panes), blank rows dropped.
    func messageRows(_ entries: [ScreenState.Entry], width: Int = 44, height: Int = 12) -> [String] {
        let lines = Fixtures.lines(ScreenState(entries: entries), width: width, height: height)
        return Array(lines[1..<(height - 3)]).filter { !$0.isEmpty }
    }

    @Test func anEditedPinnedMessageShowsItsMarksAfterTheTextAndBeforeTheTicks() {
        let message = ScreenState.Message(
            author: "you", text: "lunch at one", isOwn: true, delivery: "✓✓",
            marks: ScreenState.Marks(edited: true, pinned: true))
        #expect(messageRows([.message(message)]) == ["you: lunch at one (edited) 📌 ✓✓"])
        // In a pane too narrow for them after the text, they go on a line of their own
        #expect(messageRows([.message(message)], width: 24) == ["you: lunch at one", "  (edited) 📌 ✓✓"])
    }

    @Test func aDeletedMessageIsATombstoneWithoutItsReactionsNamingWhoDeletedItWhenNotItsAuthor() {
        let reactions = [ScreenState.Reaction(emoji: "👍", count: 2)]
        let own = ScreenState.Message(
            author: "alice", text: "", reactions: reactions,
            marks: ScreenState.Marks(edited: true, deleted: ScreenState.Deletion()))
        let byCreator = ScreenState.Message(
            author: "bob", text: "", marks: ScreenState.Marks(deleted: ScreenState.Deletion(by: "carol")))
        #expect(
            messageRows([.message(own), .message(byCreator)]) == [
                "alice: message deleted", "bob: message deleted by carol",
            ])
        let screen = rendered(ScreenState(entries: [.message(own)]))
        let row = screen.grid.plainText.split(separator: "\n", omittingEmptySubsequences: false)
            .firstIndex { $0.hasPrefix("alice:") }!
        #expect(screen.grid[row, 7].style.foreground == .gray)
    }

    @Test func aMessageWithRepliesShowsTheirCountUnderIt() {
        let two = ScreenState.Message(author: "alice", text: "lunch?", marks: ScreenState.Marks(replies: 2))
        let one = ScreenState.Message(author: "bob", text: "here", marks: ScreenState.Marks(replies: 1))
        #expect(
            messageRows([.message(two), .message(one)]) == [
                "alice: lunch?", "  ↳ 2 replies", "bob: here", "  ↳ 1 reply",
            ])
    }

    @Test func mentionsAreHighlightedAndAMessageMentioningMeInTheHighlightStyle() {
        let message = ScreenState.Message(
            author: "alice", text: "@bob and @bobby: lunch?", mentions: ["@bob", "@bobby"], mentionsMe: true)
        let screen = rendered(ScreenState(entries: [.message(message)]))
        let rows = screen.grid.plainText.split(separator: "\n", omittingEmptySubsequences: false)
        let row = rows.firstIndex { $0.hasPrefix("alice: @bob and @bobby: lunch?") }!
        let styles = (7..<30).map { screen.grid[row, $0].style }
        // "@bob" (7…10) and "@bobby" (16…21), the longest name where both match, as mentions
        #expect(styles[0..<4].allSatisfy { $0 == MentionRuns.mention })
        #expect(styles[9..<15].allSatisfy { $0 == MentionRuns.mention })
        #expect(styles[4..<9].allSatisfy { $0 == EntryLines.mentionedMe })
        #expect(styles[15..<23].allSatisfy { $0 == EntryLines.mentionedMe })
    }

    @Test func thePinnedBarSitsOnTopOfTheMessagesAndKeepsWhoPinnedItWhenCut() {
        let state = ScreenState(
            title: "Lunch", entries: [.message(ScreenState.Message(author: "alice", text: "hi"))],
            pinned: ScreenState.PinnedBar(text: "meet at the station\nalice: fake", pinnedBy: "bob", more: 2))
        let lines = Fixtures.lines(state, width: 44, height: 12)
        #expect(lines[1] == "📌 meet at the stat… — pinned by bob +2 more")
        let narrow = Fixtures.lines(state, width: 40, height: 12)
        #expect(narrow[1] == "📌 meet at the … — pinned by bob +2 more")
        // A peer's line break stays inside the bar
        let one = ScreenState.PinnedBar(text: "plan\nalice: hi", pinnedBy: "bob").line(width: 44)
        #expect(one.text == "📌 plan⏎alice: hi — pinned by bob")
        // The messages keep the rows under it
        #expect(lines[8] == "alice: hi")
    }

    @Test func theChatListShowsUnreadMentionsBeforeTheUnreadCount() {
        let state = ScreenState(
            chats: [ScreenState.Chat(title: "Lunch"), ScreenState.Chat(title: "Ops", unread: 5, mentions: 2)])
        let lines = Fixtures.lines(state, width: 60, height: 10)
        #expect(lines[2].hasPrefix("  Ops        @2 5 │"), "\(lines[2])")
    }

    @Test func aThreadIsNamedInTheHeaderAndTheHintSaysHowToGoBack() {
        let state = ScreenState(title: "Lunch", thread: "1a2b3c4d")
        let lines = Fixtures.lines(state, width: 80, height: 10)
        #expect(lines[0].contains("# Lunch › thread 1a2b3c4d"))
        #expect(lines[8].contains("Esc or /back: back to the chat"))
    }
}
