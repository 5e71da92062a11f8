/// The message list as lines for a pane width: messages wrapped with their time, id and author first,
/// the quote they reply to above them and a reactions line under them; polls as cards with a bar per
/// option; notices as they were written, wrapped.
enum EntryLines {
    static let authorColors: [TerminalColor] = [
        .cyan, .green, .yellow, .magenta, .blue, .brightCyan, .brightGreen, .brightMagenta,
    ]

    static func lines(_ entries: [ScreenState.Entry], width: Int) -> [StyledLine] {
        entries.flatMap { entry in
            switch entry {
            case let .message(message): Self.message(message, width: width)
            case let .poll(poll): Self.poll(poll, width: width)
            case let .notice(lines): Self.notice(lines, width: width)
            }
        }
    }

    /// A stable colour per name, so each author keeps theirs across redraws.
    static func color(for name: String) -> TerminalColor {
        let hash = name.unicodeScalars.reduce(UInt32(5381)) { ($0 &* 33) ^ $1.value }
        return authorColors[Int(hash % UInt32(authorColors.count))]
    }

    /// "14:02 1a2b3c4d A alice: text (edited) 📌 ✓✓", wrapped, under "  ↳ bob: quoted…" for a reply,
    /// over "  ↳ 2 replies" and its reactions. A deleted message shows its tombstone alone.
    static func message(_ message: ScreenState.Message, width: Int) -> [StyledLine] {
        let author = TextWidth.truncate(message.author, to: max(width / 2, 1))
        // Others' names only: an own message says "you".
        let avatar = message.isOwn || message.authorID.isEmpty ? nil : Avatar.span(name: author, peer: message.authorID)
        let avatarWidth = avatar.map { TextWidth.of($0.text) + 1 } ?? 0
        let fullMeta = [message.time, message.id].filter { !$0.isEmpty }.map { $0 + " " }.joined()
        // In a pane too narrow for them and some text, the time and id give way to the text.
        let meta =
            width - TextWidth.of(fullMeta) - avatarWidth - TextWidth.of(author) - 2 >= minimumText ? fullMeta : ""
        let prefix = TextWidth.of(meta) + avatarWidth + TextWidth.of(author) + 2
        let authorColor: TerminalColor? =
            message.isOwn ? .white : message.authorID.isEmpty ? color(for: message.author) : avatar?.style.background
        let authorStyle = Style(foreground: authorColor, bold: true)
        let deleted = message.marks.deleted
        let text = deleted.map(tombstone) ?? message.text
        let textStyle = deleted != nil ? gray : message.mentionsMe ? mentionedMe : .plain
        let wrapped = TextWidth.wrap(text, first: width - prefix, rest: width - 2)
        var lines: [StyledLine] = []
        if let quote = message.quote {
            lines.append(StyledLine("  " + TextWidth.truncate(quote, to: max(width - 2, 1)), style: gray))
        }
        for (index, part) in wrapped.enumerated() {
            var line = StyledLine()
            if index == 0 {
                line.append(meta, style: gray)
                if let avatar { line.append(avatar.text, style: avatar.style) }
                if avatar != nil { line.append(" ") }
                line.append(author, style: authorStyle)
                line.append(": ")
            } else {
                line.append("  ")
            }
            MentionRuns.append(part, mentions: deleted == nil ? message.mentions : [], style: textStyle, to: &line)
            lines.append(line)
        }
        appendMarks(trailingMarks(message), to: &lines, width: width)
        if message.marks.replies > 0 {
            let count = message.marks.replies
            lines.append(StyledLine("  ↳ \(count) repl\(count == 1 ? "y" : "ies")", style: gray))
        }
        return lines + (deleted == nil ? reactions(message.reactions, width: width) : [])
    }

    static let gray = Style(foreground: .gray)
    /// A message that mentions this user.
    static let mentionedMe = Style(foreground: .brightYellow, bold: true)

    /// "message deleted", naming who deleted it when it was not its author.
    static func tombstone(_ deletion: ScreenState.Deletion) -> String {
        deletion.by.map { "message deleted by \($0)" } ?? "message deleted"
    }

    /// What follows the text: "(edited)", "📌", the delivery ticks.
    static func trailingMarks(_ message: ScreenState.Message) -> [(text: String, style: Style)] {
        var marks: [(text: String, style: Style)] = []
        if message.marks.edited, message.marks.deleted == nil { marks.append(("(edited)", gray)) }
        if message.marks.pinned { marks.append(("📌", Style(foreground: .brightYellow))) }
        if !message.delivery.isEmpty { marks.append((message.delivery, gray)) }
        return marks
    }

    /// The marks after the last line's text when they fit there, else on a line of their own.
    static func appendMarks(_ marks: [(text: String, style: Style)], to lines: inout [StyledLine], width: Int) {
        guard !marks.isEmpty, var last = lines.popLast() else { return }
        let marksWidth = marks.map { TextWidth.of($0.text) }.reduce(0, +) + marks.count - 1
        if last.width + 1 + marksWidth > width {
            lines.append(last)
            last = StyledLine("  ")
        } else {
            last.append(" ")
        }
        for (index, mark) in marks.enumerated() {
            if index > 0 { last.append(" ") }
            last.append(mark.text, style: mark.style)
        }
        lines.append(last)
    }

    /// Columns of text the first line of a message keeps before its time and id are left out.
    static let minimumText = 8

    /// Each line wrapped to the pane behind a gray edge, keeping its own indentation (which lines up
    /// columns such as a results card's own-vote marks); continuation lines indented further.
    static func notice(_ notice: [String], width: Int) -> [StyledLine] {
        notice.flatMap { text in
            let indent = String(text.prefix { $0 == " " })
            let body = String(text.dropFirst(indent.count))
            return TextWidth.wrap(body, first: width - 2 - indent.count, rest: width - 4 - indent.count).enumerated()
                .map { index, part in
                    var line = StyledLine("┆ ", style: Style(foreground: .gray))
                    line.append(indent + (index == 0 ? part : "  " + part))
                    return line
                }
        }
    }

    /// "  👍 2  🎉 1" under the message, own reactions highlighted, wrapped when they do not fit.
    static func reactions(_ reactions: [ScreenState.Reaction], width: Int) -> [StyledLine] {
        guard !reactions.isEmpty else { return [] }
        var lines: [StyledLine] = []
        var line = StyledLine("  ")
        for reaction in reactions {
            let text = "\(reaction.emoji) \(reaction.count)"
            if line.width > 2, line.width + 1 + TextWidth.of(text) > width {
                lines.append(line)
                line = StyledLine("  ")
            }
            if line.width > 2 { line.append(" ") }
            line.append(
                text, style: reaction.mine ? Style(foreground: .brightYellow, bold: true) : Style(foreground: .gray))
        }
        return lines + [line]
    }

    static func poll(_ poll: ScreenState.PollCard, width: Int) -> [StyledLine] {
        let edge = Style(foreground: .magenta, bold: true)
        var lines: [StyledLine] = []
        let header =
            (poll.time.isEmpty ? "" : poll.time + " ") + "Poll \(poll.id) · \(poll.author): \(poll.question)"
            + (poll.isClosed ? " [closed]" : "")
        for (index, text) in TextWidth.wrap(header, first: width - 2, rest: width - 4).enumerated() {
            var line = StyledLine("▌ ", style: edge)
            line.append(index == 0 ? text : "  " + text, style: Style(bold: true))
            lines.append(line)
        }
        // "▌ *Label  ███·····  1  50% ★"
        let votes = poll.options.map { "\($0.votes)" },
            shares = poll.options.map { "\(Int(($0.share * 100).rounded()))%" }
        let (votesWidth, sharesWidth) = (votes.map(\.count).max() ?? 0, shares.map(\.count).max() ?? 0)
        let counts = zip(votes, shares).map { padded($0, to: votesWidth) + " " + padded($1, to: sharesWidth) }
        let countWidth = votesWidth + 1 + sharesWidth
        let labelWidth = min(poll.options.map { TextWidth.of($0.label) }.max() ?? 0, max(width / 3, 1))
        let barWidth = min(max(width - 3 - labelWidth - 1 - 1 - countWidth - 2, 0), 16)
        for (option, count) in zip(poll.options, counts) {
            var line = StyledLine("▌ ", style: edge)
            line.append(option.mine ? "*" : " ", style: Style(foreground: .brightYellow, bold: true))
            let label = TextWidth.truncate(option.label, to: labelWidth)
            line.append(label + String(repeating: " ", count: max(labelWidth - TextWidth.of(label), 0)) + " ")
            if barWidth > 0 {
                // Filled to the share, as the percent beside it and the web page's bar: never scaled to the leader.
                let filled = min(max(Int((option.share * Double(barWidth)).rounded()), 0), barWidth)
                line.append(
                    String(repeating: "█", count: filled), style: Style(foreground: option.winner ? .green : .blue))
                line.append(String(repeating: "·", count: barWidth - filled) + " ", style: Style(foreground: .gray))
            }
            line.append(count)
            if option.winner { line.append(" ★", style: Style(foreground: .yellow, bold: true)) }
            lines.append(line)
        }
        if !poll.summary.isEmpty {
            var line = StyledLine("▌ ", style: edge)
            line.append(TextWidth.truncate(poll.summary, to: width - 2), style: Style(dim: true))
            lines.append(line)
        }
        return lines
    }

    private static func padded(_ text: String, to width: Int) -> String {
        String(repeating: " ", count: max(width - text.count, 0)) + text
    }
}
