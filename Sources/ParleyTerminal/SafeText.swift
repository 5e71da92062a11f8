/// Text as it may reach a terminal: nothing a peer wrote (text, titles, names, options, tags) can
/// drive it. Control characters, ESC among them, and invisible format characters (bidirectional
/// overrides) are shown as "�" (see `TextWidth.printable`), so `\e]0;…` or `\e[2J` shows as harmless text.
public enum SafeText {
    /// Keeps line breaks, which the caller's own layout uses; use `singleLine` for peer text inside a line.
    public static func display(_ text: String) -> String {
        String(text.map { $0 == "\n" ? $0 : TextWidth.printable($0) })
    }

    /// One line: a line break becomes "⏎", so a peer cannot start a line that looks like another message.
    public static func singleLine(_ text: String) -> String {
        String(text.map { $0 == "\n" || $0 == "\r\n" || $0 == "\r" ? "⏎" : TextWidth.printable($0) })
    }
}
