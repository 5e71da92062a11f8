import Testing
import ParleyTerminal

struct InputLineTests {
    @Test func editingMovesTheCursorBetweenCharacters() {
        var line = InputLine()
        for character in "helo" { line.insert(character) }
        line.moveLeft()
        line.insert("l")
        #expect(line.text == "hello" && line.cursor == 4)
        line.moveHome()
        line.deleteForward()
        line.moveEnd()
        line.deleteBackward()
        #expect(line.text == "ell" && line.cursor == 3)
        #expect(line.take() == "ell" && line.isEmpty && line.cursor == 0)
    }

    @Test func aShortLineIsShownWholeWithTheCursorAfterIt() {
        let shown = InputLine("hello").visible(in: 20)
        #expect(shown.text == "hello" && shown.cursorColumn == 5)
    }

    @Test func aLongLineScrollsSoTheCursorStaysVisible() {
        let text = "abcdefghijklmnopqrstuvwxyz"
        // At the end: the last 9 characters, and the cursor in the tenth column.
        let end = InputLine(text).visible(in: 10)
        #expect(end.text == "rstuvwxyz" && end.cursorColumn == 9)
        // In the middle: scrolled just enough for the cursor, the text after it cut at the edge.
        let middle = InputLine(text, cursor: 15).visible(in: 10)
        #expect(middle.text == "ghijklmnop" && middle.cursorColumn == 9)
        // At the start: no scrolling.
        let start = InputLine(text, cursor: 0).visible(in: 10)
        #expect(start.text == "abcdefghij" && start.cursorColumn == 0)
    }

    @Test func wideCharactersCountTwoColumns() {
        let shown = InputLine("日本語のテキスト").visible(in: 9)
        #expect(shown.text == "テキスト" && shown.cursorColumn == 8)
    }

    @Test func theRenderedInputLineScrollsAndPlacesTheCursor() {
        let state = ScreenState(input: InputLine(String(repeating: "0123456789", count: 10)))
        let rendered = ScreenRenderer.render(state, width: 80, height: 24)
        let last = rendered.grid.plainText.split(separator: "\n").last.map(String.init)
        // 78 columns after "> ": 77 characters and the cursor after them.
        #expect(last == "> " + String(String(repeating: "0123456789", count: 10).suffix(77)))
        #expect(rendered.cursor == Position(row: 23, column: 79))
    }
}
