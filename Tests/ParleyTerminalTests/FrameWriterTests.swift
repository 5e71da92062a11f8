import Testing
import ParleyTerminal

struct FrameWriterTests {
    func grid(_ rows: [String], width: Int = 10) -> ScreenGrid {
        var grid = ScreenGrid(width: width, height: rows.count)
        for (row, text) in rows.enumerated() { grid.write(text, row: row, column: 0) }
        return grid
    }

    @Test func theFirstFrameClearsAndDrawsEverything() {
        var writer = FrameWriter(colors: .sixteen)
        let out = writer.output(for: grid(["ab", "cd"], width: 2), cursor: Position(row: 1, column: 1))
        #expect(out == "\u{1B}[0m\u{1B}[2J\u{1B}[1;1H\u{1B}[0mab\u{1B}[2;1Hcd\u{1B}[0m\u{1B}[2;2H\u{1B}[?25h")
    }

    @Test func anUnchangedFrameWritesNothing() {
        var writer = FrameWriter(colors: .sixteen)
        let frame = ScreenRenderer.render(Fixtures.state, width: 80, height: 24)
        _ = writer.output(for: frame.grid, cursor: frame.cursor)
        #expect(writer.output(for: frame.grid, cursor: frame.cursor) == "")
    }

    @Test func onlyTheChangedCellsAreWritten() {
        var writer = FrameWriter(colors: .sixteen)
        _ = writer.output(for: grid(["hello", "world"]), cursor: nil)
        // One cell on the second row changed: one move, the style, the character, a reset.
        #expect(writer.output(for: grid(["hello", "wOrld"]), cursor: nil) == "\u{1B}[2;2H\u{1B}[0mO\u{1B}[0m")
        // Two separate runs on the first row: a move for each; neighbours share one move.
        #expect(
            writer.output(for: grid(["HEllO", "wOrld"]), cursor: nil) == "\u{1B}[1;1H\u{1B}[0mHE\u{1B}[1;5HO\u{1B}[0m")
    }

    @Test func aMovedCursorAloneIsOneMove() {
        var writer = FrameWriter(colors: .sixteen)
        _ = writer.output(for: grid(["x"]), cursor: Position(row: 0, column: 1))
        #expect(writer.output(for: grid(["x"]), cursor: Position(row: 0, column: 2)) == "\u{1B}[1;3H\u{1B}[?25h")
        #expect(writer.output(for: grid(["x"]), cursor: nil) == "\u{1B}[?25l")
    }

    @Test func aChangedWideCharacterIsRewrittenWhole() {
        var writer = FrameWriter(colors: .sixteen)
        _ = writer.output(for: grid(["a👍b"]), cursor: nil)
        #expect(writer.output(for: grid(["a🎉b"]), cursor: nil) == "\u{1B}[1;2H\u{1B}[0m🎉\u{1B}[0m")
        // A narrow character replacing the wide one also clears its second column.
        #expect(writer.output(for: grid(["axyb"]), cursor: nil) == "\u{1B}[1;2H\u{1B}[0mxy\u{1B}[0m")
    }

    @Test func aResizeOrInvalidateRedrawsWhole() {
        var writer = FrameWriter(colors: .sixteen)
        _ = writer.output(for: grid(["ab"], width: 2), cursor: nil)
        #expect(writer.output(for: grid(["ab"], width: 3), cursor: nil).hasPrefix("\u{1B}[0m\u{1B}[2J"))
        writer.invalidate()
        #expect(writer.output(for: grid(["ab"], width: 3), cursor: nil).hasPrefix("\u{1B}[0m\u{1B}[2J"))
    }

    @Test(arguments: [
        (ColorMode.sixteen, Style(foreground: .red), "\u{1B}[0;31m"),
        (ColorMode.sixteen, Style(foreground: .brightCyan, background: .blue, bold: true), "\u{1B}[0;1;96;44m"),
        (ColorMode.sixteen, Style(foreground: TerminalColor(196)), "\u{1B}[0;91m"),
        (ColorMode.palette256, Style(foreground: TerminalColor(196)), "\u{1B}[0;38;5;196m"),
        (ColorMode.palette256, Style(foreground: .green, reverse: true), "\u{1B}[0;7;32m"),
        (ColorMode.none, Style(foreground: .red, background: .blue, bold: true, reverse: true), "\u{1B}[0;1;7m"),
    ])
    func stylesBecomeSGRCodes(mode: ColorMode, style: Style, expected: String) {
        var writer = FrameWriter(colors: mode)
        var grid = ScreenGrid(width: 1, height: 1)
        grid.write("x", row: 0, column: 0, style: style)
        #expect(
            writer.output(for: grid, cursor: nil) == "\u{1B}[0m\u{1B}[2J\u{1B}[1;1H" + expected
                + "x\u{1B}[0m\u{1B}[?25l")
    }

    @Test(arguments: [
        (["NO_COLOR": "1", "TERM": "xterm-256color"], ColorMode.none),
        (["NO_COLOR": "", "TERM": "xterm-256color"], ColorMode.palette256),
        (["TERM": "dumb"], ColorMode.none),
        (["TERM": "screen"], ColorMode.sixteen),
        (["TERM": "xterm", "COLORTERM": "truecolor"], ColorMode.palette256),
        ([:], ColorMode.sixteen),
    ])
    func colourFollowsNoColorAndTerm(environment: [String: String], expected: ColorMode) {
        #expect(ColorMode.detect(environment: environment) == expected)
    }

    @Test func noColorFramesCarryNoColourCodes() {
        var writer = FrameWriter(colors: .none)
        let frame = ScreenRenderer.render(Fixtures.state, width: 80, height: 24)
        let out = writer.output(for: frame.grid, cursor: frame.cursor)
        // Every SGR sequence holds attributes only (0, 1, 2, 4, 7): no 30–49 or 90–107 colour codes.
        let sgr = out.split(separator: "\u{1B}[").compactMap { $0.split(separator: "m", maxSplits: 1).first }
            .filter { $0.allSatisfy { $0.isNumber || $0 == ";" } }
        #expect(!sgr.isEmpty)
        #expect(
            sgr.allSatisfy { $0.split(separator: ";").allSatisfy { ["0", "1", "2", "4", "7"].contains(String($0)) } })
        #expect(out.contains("Members (3)"))
    }
}
