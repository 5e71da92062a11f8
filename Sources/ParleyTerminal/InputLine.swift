/// The line being typed: its characters and the cursor (an index between characters).
public struct InputLine: Hashable, Sendable {
    public private(set) var characters: [Character]
    public private(set) var cursor: Int

    public init(_ text: String = "", cursor: Int? = nil) {
        characters = Array(text)
        self.cursor = min(max(cursor ?? characters.count, 0), characters.count)
    }

    public var text: String { String(characters) }
    public var isEmpty: Bool { characters.isEmpty }

    public mutating func insert(_ character: Character) {
        characters.insert(character, at: cursor)
        cursor += 1
    }

    public mutating func deleteBackward() {
        guard cursor > 0 else { return }
        cursor -= 1
        characters.remove(at: cursor)
    }

    public mutating func deleteForward() {
        guard cursor < characters.count else { return }
        characters.remove(at: cursor)
    }

    public mutating func moveLeft() { cursor = max(cursor - 1, 0) }
    public mutating func moveRight() { cursor = min(cursor + 1, characters.count) }
    public mutating func moveHome() { cursor = 0 }
    public mutating func moveEnd() { cursor = characters.count }

    /// Empties the line and returns what it held.
    public mutating func take() -> String {
        defer { self = InputLine() }
        return text
    }

    /// What fits in `columns`, scrolled horizontally so the cursor stays visible (one column is kept
    /// for the cursor after the last character), and the cursor's column within it.
    public func visible(in columns: Int) -> (text: String, cursorColumn: Int) {
        guard columns > 0 else { return ("", 0) }
        var start = 0
        var before = TextWidth.of(String(characters[..<cursor]))
        while before > columns - 1, start < cursor {
            before -= TextWidth.of(characters[start])
            start += 1
        }
        var shown = "", used = 0
        for character in characters[start...] {
            let width = TextWidth.of(TextWidth.printable(character))
            guard used + width <= columns else { break }
            shown.append(character)
            used += width
        }
        return (shown, before)
    }
}
