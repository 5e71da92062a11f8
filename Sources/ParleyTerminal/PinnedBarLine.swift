extension ScreenState.PinnedBar {
    static let style = Style(foreground: .brightYellow, bold: true)

    /// "📌 text — pinned by NAME +2 more" in `width` columns: the text is cut first, so who pinned it
    /// and how many more there are stay readable; the pinned text on one line, as peers cannot start
    /// one that looks like another.
    func line(width: Int) -> StyledLine {
        let by = " — pinned by " + SafeText.singleLine(pinnedBy)
        let more = self.more > 0 ? " +\(self.more) more" : ""
        let room = width - 3 - TextWidth.of(by) - TextWidth.of(more)
        var line = StyledLine("📌 ", style: Self.style)
        guard room >= EntryLines.minimumText else {
            line.append(TextWidth.truncate(SafeText.singleLine(text) + by + more, to: max(width - 3, 0)))
            return line
        }
        line.append(TextWidth.truncate(SafeText.singleLine(text), to: room))
        line.append(by, style: Style(foreground: .gray))
        line.append(more, style: Style(foreground: .gray, bold: true))
        return line
    }
}
