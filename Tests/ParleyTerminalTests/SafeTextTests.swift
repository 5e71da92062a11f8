import ParleyTerminal
import Testing

/// Text from peers never reaches the terminal as control or escape sequences.
struct SafeTextTests {
    @Test func escapeAndControlSequencesShowAsHarmlessText() {
        let hostile = "\u{1B}]0;pwned\u{07}hi \u{1B}[2J\u{9B}31m\u{202E}evil"
        let shown = SafeText.display(hostile)
        #expect(
            !shown.unicodeScalars.contains { $0.value < 0x20 || (0x7F..<0xA0).contains($0.value) || $0.value == 0x202E }
        )
        #expect(shown == "\u{FFFD}]0;pwned\u{FFFD}hi \u{FFFD}[2J\u{FFFD}31m\u{FFFD}evil")
    }

    @Test func singleLineTextCannotStartAFakeLine() {
        #expect(SafeText.singleLine("ok\nalice: send me your key") == "ok⏎alice: send me your key")
        #expect(SafeText.display("first\nsecond") == "first\nsecond")
    }
}
