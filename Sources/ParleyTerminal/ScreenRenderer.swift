/// A cell position, zero-based.
public struct Position: Hashable, Sendable {
    public let row: Int
    public let column: Int

    public init(row: Int, column: Int) {
        self.row = row
        self.column = column
    }
}

/// A drawn frame and what the shell needs to know about it.
public struct RenderedScreen: Hashable, Sendable {
    public let grid: ScreenGrid
    /// Where the terminal cursor goes; nil hides it (when the chat pane has the focus).
    public let cursor: Position?
    /// All lines of the message list at this width, and the rows that show them.
    public let messageLines: Int
    public let messageRows: Int
    /// The scroll actually used (the state's, clamped to what there is).
    public let scroll: Int

    /// Whether the oldest loaded line is on screen: time to load older messages.
    public var showsTop: Bool { messageLines - scroll <= messageRows }
}

/// Draws a `ScreenState` into a grid of any size. Pure: the same state and size give the same frame.
public enum ScreenRenderer {
    static let bar = Style(reverse: true)
    static let border = Style(foreground: .gray)

    public static func render(_ state: ScreenState, width: Int, height: Int) -> RenderedScreen {
        let layout = ScreenLayout(width: width, height: height)
        var grid = ScreenGrid(width: width, height: height)
        if let row = layout.headerRow { header(state, layout: layout, row: row, into: &grid) }
        if let pane = layout.chats {
            chats(state, pane: pane, into: &grid)
            separator(column: pane.column + pane.width, pane: pane, into: &grid)
        }
        if let pane = layout.members {
            separator(column: pane.column - 1, pane: pane, into: &grid)
            members(state.members, pane: pane, into: &grid)
        }
        // A warning about the chat stays on top of its messages, which get the rows below it.
        let warning = warningLines(state.warning, pane: layout.messages)
        for (offset, line) in warning.enumerated() {
            grid.write(
                line, row: layout.messages.top + offset, column: layout.messages.column, limit: layout.messages.width,
                style: warningStyle)
        }
        var (messagesTop, messagesHeight) = (
            layout.messages.top + warning.count, layout.messages.height - warning.count
        )
        // The latest pin under it, while the pane keeps two rows of messages.
        if let pinned = state.pinned, messagesHeight >= 3 {
            grid.write(
                pinned.line(width: layout.messages.width), row: messagesTop, column: layout.messages.column,
                limit: layout.messages.width)
            (messagesTop, messagesHeight) = (messagesTop + 1, messagesHeight - 1)
        }
        let lines = EntryLines.lines(state.entries, width: layout.messages.width)
        let scroll = min(max(state.scroll, 0), max(lines.count - messagesHeight, 0))
        let end = lines.count - scroll
        let start = max(end - messagesHeight, 0)
        // Newest at the bottom; a short list sits right above the typing line.
        let firstRow = messagesTop + messagesHeight - (end - start)
        for (offset, line) in lines[start..<end].enumerated() {
            grid.write(line, row: firstRow + offset, column: layout.messages.column, limit: layout.messages.width)
        }
        if let row = layout.typingRow, !state.typing.isEmpty {
            grid.write(
                " " + typingText(state.typing), row: row, column: 0, limit: width,
                style: Style(foreground: .gray, dim: true))
        }
        if let row = layout.statusRow { status(state, row: row, into: &grid) }
        var cursor: Position?
        if let row = layout.inputRow {
            let prompt = state.focus == .input ? "> " : "  "
            grid.write(prompt, row: row, column: 0, style: Style(foreground: .green, bold: true))
            let columns = max(width - 2, 0)
            let (text, column) = state.input.visible(in: columns)
            grid.write(text, row: row, column: 2, limit: columns)
            if state.focus == .input, width > 2 { cursor = Position(row: row, column: 2 + column) }
        }
        return RenderedScreen(
            grid: grid, cursor: cursor, messageLines: lines.count, messageRows: messagesHeight, scroll: scroll)
    }

    static let warningStyle = Style(foreground: .brightYellow, bold: true)

    /// The warning wrapped to the message pane, in at most 3 lines and at most a third of its rows
    /// (none below 3), the last cut with "…" when it does not fit; each line is sanitized by `write`.
    static func warningLines(_ warning: String?, pane: ScreenLayout.Pane) -> [String] {
        guard let warning, !warning.isEmpty, pane.width > 0 else { return [] }
        let most = min(3, pane.height / 3)
        guard most > 0 else { return [] }
        // One line: a peer's line break cannot start what looks like another entry.
        var lines = TextWidth.wrap(SafeText.singleLine(warning), first: pane.width, rest: pane.width)
        if lines.count > most {
            lines = Array(lines.prefix(most))
            lines[most - 1] = TextWidth.truncate(lines[most - 1] + " …", to: pane.width)
        }
        return lines
    }

    /// "alice is typing…", "alice and bob are typing…", "alice, bob and 2 others are typing…".
    public static func typingText(_ names: [String]) -> String {
        switch names.count {
        case 0: ""
        case 1: "\(names[0]) is typing…"
        case 2: "\(names[0]) and \(names[1]) are typing…"
        case 3: "\(names[0]), \(names[1]) and \(names[2]) are typing…"
        default: "\(names[0]), \(names[1]) and \(names.count - 2) others are typing…"
        }
    }

    private static func header(_ state: ScreenState, layout: ScreenLayout, row: Int, into grid: inout ScreenGrid) {
        grid.fill(row: row, column: 0, count: layout.width, style: bar)
        let bold = Style(bold: true, reverse: true)
        if let pane = layout.chats {
            grid.write(" Chats", row: row, column: pane.column, limit: pane.width, style: bold)
        }
        let pane = layout.messages
        let title = " # " + state.title + (state.thread.map { " › thread " + $0 } ?? "")
        grid.write(title, row: row, column: pane.column, limit: pane.width, style: bold)
        if let pane = layout.members {
            grid.write(
                " Members (\(state.members.count))", row: row, column: pane.column, limit: pane.width, style: bold)
        }
    }

    private static func separator(column: Int, pane: ScreenLayout.Pane, into grid: inout ScreenGrid) {
        for row in pane.top..<(pane.top + pane.height) { grid.write("│", row: row, column: column, style: border) }
    }

    private static func chats(_ state: ScreenState, pane: ScreenLayout.Pane, into grid: inout ScreenGrid) {
        guard pane.height > 0 else { return }
        // Scrolled so the selected chat stays in view.
        let first = max(0, min(state.selectedChat - pane.height + 1, state.chats.count - pane.height))
        for (offset, chat) in state.chats.dropFirst(first).prefix(pane.height).enumerated() {
            let index = first + offset, row = pane.top + offset
            let selected = index == state.selectedChat
            let style =
                selected
                ? (state.focus == .chats
                    ? Style(bold: true, reverse: true) : Style(foreground: .brightCyan, bold: true)) : .plain
            if selected { grid.fill(row: row, column: pane.column, count: pane.width, style: style) }
            let unread = (chat.mentions > 0 ? " @\(chat.mentions)" : "") + (chat.unread > 0 ? " \(chat.unread)" : "")
            let title = TextWidth.truncate(chat.title, to: pane.width - 2 - TextWidth.of(unread) - 1)
            grid.write((selected ? "› " : "  ") + title, row: row, column: pane.column, limit: pane.width, style: style)
            if !unread.isEmpty {
                let column = pane.column + pane.width - TextWidth.of(unread) - 1
                grid.write(
                    unread, row: row, column: column,
                    style: selected ? style : Style(foreground: .brightYellow, bold: true))
            }
        }
    }

    private static func members(_ members: [ScreenState.Member], pane: ScreenLayout.Pane, into grid: inout ScreenGrid) {
        var row = pane.top
        for member in members {
            guard row < pane.top + pane.height else { return }
            let (marker, markerStyle, nameStyle): (String, Style, Style) =
                switch member.presence {
                case .online: ("●", Style(foreground: .green, bold: true), .plain)
                case .offline: ("○", Style(foreground: .gray), Style(foreground: .gray))
                case nil: (" ", .plain, .plain)
                }
            grid.write(" " + marker + " ", row: row, column: pane.column, limit: pane.width, style: markerStyle)
            var style = nameStyle
            style.bold = member.isYou
            grid.write(
                TextWidth.truncate(member.name, to: pane.width - 3), row: row, column: pane.column + 3,
                limit: pane.width - 3, style: style)
            row += 1
            if case let .offline(lastSeen?) = member.presence, row < pane.top + pane.height {
                grid.write(
                    TextWidth.truncate("seen " + lastSeen, to: pane.width - 3), row: row, column: pane.column + 3,
                    limit: pane.width - 3, style: Style(foreground: .gray, dim: true))
                row += 1
            }
        }
    }

    private static func status(_ state: ScreenState, row: Int, into grid: inout ScreenGrid) {
        let style = state.status?.isError == true ? Style(foreground: .white, background: .red, bold: true) : bar
        grid.fill(row: row, column: 0, count: grid.width, style: style)
        let hint =
            state.thread == nil
            ? "Tab/^N/^P chat · Esc chat list · PgUp/PgDn scroll · /quit"
            : "Esc or /back: back to the chat · typed text replies to the thread"
        let text = state.status?.text ?? hint
        grid.write(" " + text, row: row, column: 0, limit: grid.width, style: style)
    }
}
