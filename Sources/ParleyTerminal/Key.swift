/// A key press, decoded from the bytes a terminal sends in raw mode.
public enum Key: Hashable, Sendable {
    case character(Character)
    /// Ctrl with a letter, lower-case: `.control("c")` is Ctrl-C. Tab, Enter and Backspace have their own cases.
    case control(Character)
    case enter, backspace, delete, tab, backTab, escape
    case up, down, left, right, home, end, pageUp, pageDown
}
