/// Terminal display widths and word wrapping by columns, not characters.
public enum TextWidth {
    /// Columns a character takes: 2 for East Asian wide characters and emoji, 1 otherwise.
    /// Control characters are never drawn as such (see `printable`), so they count as the 1 column
    /// of their replacement.
    public static func of(_ character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if scalars.contains(where: { $0.value == 0xFE0F }) || first.properties.isEmojiPresentation { return 2 }
        switch first.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
            0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
            0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            return 2
        default:
            return 1
        }
    }

    public static func of(_ text: some StringProtocol) -> Int { text.reduce(0) { $0 + of($1) } }

    /// The character as it may be drawn: control characters (including ESC, so text from peers can
    /// never drive the terminal) become "�", a tab a space.
    public static func printable(_ character: Character) -> Character {
        if character == "\t" { return " " }
        let isControl = character.unicodeScalars.contains { scalar in
            scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value)
                || scalar.properties.generalCategory == .format && scalar.value != 0x200D && scalar.value != 0xFE0F
        }
        return isControl ? "\u{FFFD}" : character
    }

    /// The longest prefix of `text` that fits `columns`, with "…" when something was cut.
    public static func truncate(_ text: String, to columns: Int) -> String {
        guard columns > 0 else { return "" }
        guard of(text) > columns else { return text }
        var result = "", used = 0
        for character in text {
            let width = of(character)
            guard used + width <= columns - 1 else { break }
            result.append(character)
            used += width
        }
        return result + "…"
    }

    /// Word-wraps `text` to lines of at most `first` columns for the first line and `rest` after it.
    /// Newlines start new lines; a word longer than a line is broken where the line ends.
    public static func wrap(_ text: String, first: Int, rest: Int) -> [String] {
        let first = max(first, 1), rest = max(rest, 1)
        var lines: [String] = []
        var line = "", used = 0
        var limit: Int { lines.isEmpty ? first : rest }
        func breakLine() {
            lines.append(line)
            line = ""
            used = 0
        }
        for (index, paragraph) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if index > 0 { breakLine() }
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: false) {
                let width = of(word)
                let gap = used == 0 ? 0 : 1
                if used > 0, used + gap + width > limit { breakLine() }
                if used > 0 {
                    line.append(" ")
                    used += 1
                }
                for character in word {
                    let columns = of(character)
                    if used + columns > limit, used > 0 { breakLine() }
                    line.append(character)
                    used += columns
                }
            }
        }
        lines.append(line)
        return lines
    }
}
