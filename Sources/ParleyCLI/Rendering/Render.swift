import Foundation
import ParleyTerminal
import ParleyAPI

/// Text output shared by the commands and `parley open`.
enum Render {
    /// A peer as shown: its name (on one line: names can come from peers), or its id's first 8 hex digits.
    static func name(_ id: String, _ name: String?) -> String { name.map(SafeText.singleLine) ?? String(id.prefix(8)) }

    static func line(_ message: MessageView) -> String {
        let who = name(message.author, message.authorName)
        let tag = message.tag == "Text" ? "" : " <\(message.tag)>"
        let refs =
            message.references.isEmpty
            ? "" : " → " + message.references.map { "\($0.id.prefix(8)):\($0.tag)" }.joined(separator: ",")
        return
            "#\(message.localNumber) \(message.id.prefix(12)) \(who)\(tag): \(content(message))\(refs)\(amendmentMarks(message))\(ticks(message))"
    }

    /// Custom JSON on one line, cut short; a link message marked with its link count.
    private static func content(_ message: MessageView) -> String {
        switch message.kind {
        case "deleted": return tombstone(message)
        case "custom":
            let flat = message.text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
                .joined(separator: " ")
            return flat.count > 120 ? flat.prefix(119) + "…" : flat
        case "link":
            return
                "\(SafeText.singleLine(message.text)) [\(message.links.count) link\(message.links.count == 1 ? "" : "s")]"
        default: return message.sealed ? "(sealed: you hold no key for it)" : SafeText.singleLine(message.text)
        }
    }

    static func receipt(_ receipt: ReceiptView) -> String {
        let delivered =
            receipt.delivered ? "delivered" + (receipt.deliveredAtMillis.map { " \(time($0))" } ?? "") : "not delivered"
        let read = receipt.read ? "read" + (receipt.readAtMillis.map { " \(time($0))" } ?? "") : "not read"
        return "\(name(receipt.member, receipt.name)): \(delivered), \(read)"
    }

    static func poll(_ poll: PollResultsView) -> String {
        let state =
            switch poll.phase {
            // A creator that closed again cannot change the result; say so, since it tried.
            case .closed:
                " [closed\(poll.laterCloses.map { "; \($0) later close\($0 == 1 ? "" : "s") ignored" } ?? "")]"
            case .closing: " [closing: waiting for the creator's close]"
            case .disputed:
                " [disputed: \(poll.disputes?.creator.map { name($0.id, $0.name) } ?? "its creator") signed two histories]"
            case .open: poll.closesAtMillis.map { " [closes \(time($0))]" } ?? ""
            }
        let header =
            "poll \(poll.id.prefix(12)) by \(name(poll.author, poll.authorName)): \(SafeText.singleLine(poll.question))\(state)"
        if let secret = poll.secret { return secretPoll(poll, secret, header: header) }
        var lines = [header]
        if let voters = poll.disputes?.voters, !voters.isEmpty {
            lines.append(
                "  disputed: \(voters.map { name($0.id, $0.name) }.joined(separator: ", ")) signed two histories; their votes count for nothing"
            )
        }
        if let description = poll.description { lines.append("  \(SafeText.singleLine(description))") }
        if let up = poll.up, let down = poll.down {
            lines.append("  up \(up)  down \(down)")
            if !poll.voters.isEmpty {
                lines.append(
                    "  voters: "
                        + poll.voters.map { "\(name($0.id, $0.name)) \($0.vote ?? "")" }.joined(separator: ", "))
            }
            // What every peer tallies (the stored votes), not this node's local record of a vote.
            if poll.ownBallot == .afterClose {
                lines.append("  your latest vote" + afterClose)
            } else if let mine = poll.ownVotes.first {
                lines.append("  you voted \(mine)")
            }
            return lines.joined(separator: "\n")
        }
        lines += optionLines(poll)
        if poll.ownBallot == .afterClose { lines.append("  your latest vote" + afterClose) }
        if let settings = poll.settings { lines.append("  " + describe(settings) + "  ·  \(poll.totalVotes) vote(s)") }
        if !poll.voters.isEmpty {
            lines.append(
                "  voters: "
                    + poll.voters.map {
                        "\(name($0.id, $0.name)) \(($0.options ?? []).map { optionLabel($0, poll) }.joined(separator: "+"))"
                    }
                    .joined(separator: ", "))
        }
        if poll.answersCount > 0 {
            lines.append("  \(poll.answersCount) answer(s):")
            lines += poll.latestAnswers.map { answer in
                "    \(answer.author.map { name($0, answer.authorName) } ?? "someone"): \(SafeText.singleLine(answer.text))"
            }
        }
        return lines.joined(separator: "\n")
    }

    private static let afterClose = " (after the close: not counted)"

    /// One bar per option, filled to its share of the ballots (`PollBar`, as the full screen and the
    /// web page draw it): id, bar, count and share; * marks own votes, ★ the winner of a closed poll.
    static func optionLines(_ poll: PollResultsView) -> [String] {
        let width = 20
        let texts = Dictionary((poll.options ?? []).map { ($0.id, $0.text) }, uniquingKeysWith: { first, _ in first })
        return poll.bars.map { bar in
            let filled = Int((bar.share * Double(width)).rounded())
            let drawn = String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
            let mine = poll.ownVotes.contains(bar.choice) ? "*" : " "
            let percent = Int((bar.share * 100).rounded())
            let text = texts[bar.choice].map(SafeText.singleLine) ?? bar.choice
            return
                "  \(mine)[\(bar.choice.prefix(8))] \(drawn) \(bar.votes) (\(percent)%) \(text)\(bar.winner ? " ★" : "")"
        }
    }

    static func votes(_ page: PollVotesView) -> String {
        var lines = page.items.map { item in
            let who = item.author.map { name($0, item.authorName) } ?? "(anonymous)"
            return item.text.map { "\(who): \($0)" }
                ?? "\(who): \(item.options.map { String($0.prefix(8)) }.joined(separator: ", "))"
        }
        if let next = page.nextCursor { lines.append("more: --before \(next)") }
        return lines.isEmpty ? "(no votes)" : lines.joined(separator: "\n")
    }

    static func optionLabel(_ id: String, _ poll: PollResultsView) -> String {
        poll.options?.first { $0.id == id }?.text ?? String(id.prefix(8))
    }

    private static func describe(_ settings: PollResultsView.Settings) -> String {
        var parts = [
            settings.unique ? "one choice" : settings.maxVotes.map { "up to \($0) choices" } ?? "any number of choices"
        ]
        if settings.anonymous { parts.append("anonymous") }
        if settings.allowAnswers { parts.append("answers on") }
        if settings.allowSuggestions { parts.append("suggestions on") }
        return parts.joined(separator: ", ")
    }

    static func time(_ millis: Int64) -> String {
        ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(millis) / 1_000))
    }
}
