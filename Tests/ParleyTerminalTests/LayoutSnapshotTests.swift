import Testing
import ParleyTerminal

/// The whole frame as text (styles dropped, trailing spaces trimmed), compared with snapshots.
struct LayoutSnapshotTests {
    @Test func everyPaneFitsAt80By24() {
        let expected = """
             Chats              # Lunch                                      Members (3)
            › Lunch           │                                            │ ● alice
              Weekend trip  3 │                                            │ ○ bob
              Ops             │                                            │   seen 14:02
                              │                                            │ ● you
                              │                                            │
                              │                                            │
                              │                                            │
                              │                                            │
                              │                                            │
                              │                                            │
                              │                                            │
                              │                                            │
                              │                                            │
                              │alice: Where do we eat today?               │
                              │you: Pizza again?                           │
                              │  👍 2                                      │
                              │▌ Poll 565e1db6 · alice: Lunch?             │
                              │▌ *Pizza ███████████····· 2 67% ★           │
                              │▌  Sushi █████··········· 1 33%             │
                              │▌ 3 votes                                   │
             alice is typing…
             Tab/^N/^P chat · Esc chat list · PgUp/PgDn scroll · /quit
            > see you
            """
        #expect(Fixtures.text(Fixtures.state, width: 80, height: 24) == expected)
    }

    @Test func widerAndTallerTerminalsGiveTheMessagesTheSpace() {
        let expected = """
             Chats                  # Lunch                                                                      Members (3)
            › Lunch               │                                                                            │ ● alice
              Weekend trip      3 │                                                                            │ ○ bob
              Ops                 │                                                                            │   seen 14:02
                                  │                                                                            │ ● you
                                  │                                                                            │
                                  │                                                                            │
                                  │                                                                            │
                                  │                                                                            │
                                  │                                                                            │
                                  │                                                                            │
                                  │                                                                            │
                                  │                                                                            │
                                  │                                                                            │
                                  │                                                                            │
                                  │                                                                            │
                                  │                                                                            │
                                  │                                                                            │
                                  │                                                                            │
                                  │                                                                            │
                                  │                                                                            │
                                  │                                                                            │
                                  │                                                                            │
                                  │                                                                            │
                                  │                                                                            │
                                  │                                                                            │
                                  │                                                                            │
                                  │                                                                            │
                                  │                                                                            │
                                  │                                                                            │
                                  │alice: Where do we eat today?                                               │
                                  │you: Pizza again?                                                           │
                                  │  👍 2                                                                      │
                                  │▌ Poll 565e1db6 · alice: Lunch?                                             │
                                  │▌ *Pizza ███████████····· 2 67% ★                                           │
                                  │▌  Sushi █████··········· 1 33%                                             │
                                  │▌ 3 votes                                                                   │
             alice is typing…
             Tab/^N/^P chat · Esc chat list · PgUp/PgDn scroll · /quit
            > see you
            """
        #expect(Fixtures.text(Fixtures.state, width: 120, height: 40) == expected)
    }

    @Test func narrowTerminalsHideTheMemberPaneThenTheChatPane() {
        let withoutMembers = """
            › Lunch           │▌ *Pizza ███████████····· 2 67% ★
              Weekend trip  3 │▌  Sushi █████··········· 1 33%
              Ops             │▌ 3 votes
             Tab/^N/^P chat · Esc chat list · PgUp/PgDn scroll · /quit
            > see you
            """
        #expect(Fixtures.text(Fixtures.state, width: 70, height: 5) == withoutMembers)
        let messagesOnly = """
             # Lunch
            you: Pizza again?
              👍 2
            ▌ Poll 565e1db6 · alice: Lunch?
            ▌ *Pizza ███████████····· 2 67% ★
            ▌  Sushi █████··········· 1 33%
            ▌ 3 votes
             alice is typing…
             Tab/^N/^P chat · Esc chat list · PgUp/PgDn scroll
            > see you
            """
        #expect(Fixtures.text(Fixtures.state, width: 50, height: 10) == messagesOnly)
    }

    @Test(arguments: [(80, 24), (120, 40), (79, 23), (60, 12), (40, 8), (20, 4), (5, 2), (1, 1), (0, 0)])
    func noLineIsWiderThanTheTerminal(width: Int, height: Int) {
        let rendered = ScreenRenderer.render(Fixtures.state, width: width, height: height)
        #expect(rendered.grid.cells.count == width * height)
        let lines = rendered.grid.plainText.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.allSatisfy { TextWidth.of($0) <= width })
        if let cursor = rendered.cursor {
            #expect(cursor.row < height && cursor.column < width)
        }
    }
}
