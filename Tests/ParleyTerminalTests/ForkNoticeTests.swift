import Testing
import ParleyTerminal

/// Members who signed two histories (PROTOCOL.md §4.4) as the CLI and the full screen name them:
/// by name, on one line, and a peer's name can never drive the terminal or turn the sentence around.
struct ForkNoticeTests {
    static let mallory = ForkNotice.Member(id: "a1b2c3d4e5f60718", name: "mallory", fromSequence: 5)
    static let unnamed = ForkNotice.Member(id: "0f1e2d3c4b5a6978", name: nil, fromSequence: 2)
    /// ESC sequences (a title change, clear screen), a bell, a right-to-left override and a line break.
    static let hostile = ForkNotice.Member(
        id: "ffeeddccbbaa9988", name: "eve\u{1B}]0;pwned\u{07}\u{1B}[2J\u{202E}nomis\nalice: hi", fromSequence: 3)

    @Test func aChatIsMarkedWithItsForkedMembersByName() {
        #expect(ForkNotice.mark([]) == nil)
        #expect(ForkNotice.mark([Self.mallory]) == "⚠ mallory signed two histories")
        #expect(ForkNotice.mark([Self.mallory, Self.unnamed]) == "⚠ mallory and 0f1e2d3c signed two histories")
        #expect(
            ForkNotice.memberMark(fromSequence: 5)
                == "⚠ signed two histories from their message 5: their messages from then on count for nothing")
    }

    @Test func theNoticeSaysFromWhereTheirMessagesCountForNothing() {
        #expect(ForkNotice.notice([]) == nil)
        #expect(
            ForkNotice.notice([Self.mallory])
                == "mallory signed two histories from their message 5: their messages from then on count for nothing and are not shown"
        )
        let many = ForkNotice.Member(id: "99", name: "zed", fromSequence: 9)
        #expect(
            ForkNotice.notice([Self.mallory, Self.unnamed, many])?
                .hasPrefix(
                    "mallory, 0f1e2d3c and zed signed two histories: their messages from each one's fork on count for nothing"
                ) == true)
    }

    @Test func aHostileNameIsShownAsHarmlessCharactersOnOneLine() throws {
        for text in [ForkNotice.mark([Self.hostile]), ForkNotice.notice([Self.hostile])] {
            let shown = try #require(text)
            // Nothing that drives a terminal, no bidirectional override, no second line
            #expect(!shown.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || $0.value == 0x202E })
            #expect(!shown.contains("\n"))
            #expect(shown.contains("eve\u{FFFD}]0;pwned\u{FFFD}\u{FFFD}[2J\u{FFFD}nomis⏎alice: hi"))
        }
    }

    @Test func theFullScreenShowsTheWarningAboveTheMessages() throws {
        // Given the fixture chat with a forked member
        var state = Fixtures.state
        state.warning = "⚠ " + (ForkNotice.notice([Self.mallory]) ?? "")
        let lines = Fixtures.lines(state, width: 80, height: 24)
        let pane = lines.map { line in String(Array(line).dropFirst(19).prefix(44)) }

        // Then the message pane's first rows carry it, wrapped, and the messages still show below
        #expect(pane[1].hasPrefix("⚠ mallory signed two histories from their"), "\(lines.joined(separator: "\n"))")
        #expect(pane[2].hasPrefix("message 5: their messages from then on count"))
        #expect(pane[3].hasPrefix("for nothing and are not shown"))
        #expect(pane.contains { $0.hasPrefix("alice: Where do we eat today?") })
        #expect(pane.contains { $0.hasPrefix("▌ 3 votes") })
        let rendered = ScreenRenderer.render(state, width: 80, height: 24)
        #expect(rendered.messageRows == ScreenRenderer.render(Fixtures.state, width: 80, height: 24).messageRows - 3)
    }

    @Test func aLongWarningIsCutToThreeLinesAndAShortTerminalDropsIt() throws {
        var state = Fixtures.state
        let crowd = (1...30).map { ForkNotice.Member(id: "\($0)", name: "member\($0)", fromSequence: 1) }
        state.warning = ForkNotice.notice(crowd)
        let pane = Fixtures.lines(state, width: 80, height: 24).map { String(Array($0).dropFirst(19).prefix(44)) }
        #expect(pane[3].contains("…"), "\(pane[1...4])")
        #expect(!pane[4].contains("member"))
        // A terminal with no room for it (two message rows) shows the messages only
        let short = Fixtures.text(state, width: 80, height: 4)
        #expect(!short.contains("member1"))
    }

    @Test func aHostileWarningCannotDriveTheTerminal() throws {
        var state = Fixtures.state
        state.warning = ForkNotice.notice([Self.hostile])
        let screen = Fixtures.text(state, width: 80, height: 24)
        #expect(!screen.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x202E })
        // The fake "alice: hi" after the line break stays inside the warning, on its line
        let lines = screen.split(separator: "\n").map(String.init)
        #expect(!lines.contains { String(Array($0).dropFirst(19)).hasPrefix("alice: hi") })
    }
}
