import Testing
import ParleyTerminal

struct TextWidthTests {
    @Test(arguments: [("a", 1), ("é", 1), ("日", 2), ("👍", 2), ("❤️", 2), ("─", 1)])
    func charactersHaveTheirTerminalWidth(character: Character, width: Int) {
        #expect(TextWidth.of(character) == width)
    }

    @Test func truncationMarksTheCutAndRespectsWideCharacters() {
        #expect(TextWidth.truncate("Weekend trip", to: 8) == "Weekend…")
        #expect(TextWidth.truncate("short", to: 8) == "short")
        #expect(TextWidth.truncate("日本語", to: 4) == "日…")
        #expect(TextWidth.truncate("anything", to: 0) == "")
    }

    @Test func wrappingKeepsEveryLineWithinItsWidth() {
        let lines = TextWidth.wrap("a bb ccc dddd eeeee 日本語のテキスト", first: 6, rest: 8)
        #expect(lines == ["a bb", "ccc dddd", "eeeee", "日本語の", "テキスト"])
        #expect(TextWidth.wrap("", first: 5, rest: 5) == [""])
    }
}
