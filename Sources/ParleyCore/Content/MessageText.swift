/// One human line for a message of any kind: what every view shows (the text list, the chat list,
/// the watch, the full screen and the API's `text`), so none of them prints a binary encoding.
public enum MessageText {
    /// - Parameters:
    ///   - poll: the poll `message` changes (a vote, answer, suggestion or close), when held; it names
    ///     the options a ballot selects, and says whether the poll is anonymous.
    ///   - name: how to call a peer.
    public static func render(_ message: Message, poll: Poll?, name: (PeerID) -> String) -> String {
        switch message.tag {
        case .text: return Mentions.rendered(message.text, name: name)
        case .custom: return message.text
        case .edit: return "edited a message: \(Mentions.rendered(message.text, name: name))"
        case .delete: return "deleted a message"
        case .pin: return PinContent(message.content) == .unpin ? "unpinned a message" : "pinned a message"
        case .poll: return question(message)
        case .pollVoteUp: return "voted up"
        case .pollVoteDown: return "voted down"
        case .pollVote: return ballot(message, poll: poll)
        case .pollAnswer: return "answered: \(message.text)"
        case .pollSuggestion: return "suggested \(quoted(message.text))"
        case .pollClose: return "closed the poll"
        case .pollSecretBallot: return "relayed a secret ballot"
        case .pollBallotCommit: return "committed to the secret ballots it holds"
        case .pollBallotReveal: return "showed a secret ballot it held that the poll's creator did not publish"
        case .ballotKey: return "published a ballot key for secret polls"
        case .reaction: return reaction(message)
        case .membership: return membership(message, name: name)
        case .file: return file(message, name: name)
        default:
            let text = message.text
            let readable = !message.content.isEmpty && String(validating: message.content, as: UTF8.self) != nil
            return readable
                ? "[\(message.tag.rawValue)] \(text)" : "[\(message.tag.rawValue)] (\(message.content.count) bytes)"
        }
    }

    /// "📎 report.pdf (1.2 MiB) — caption" or "🖼 beach.jpg (640×480, 88 KiB)".
    static func file(_ message: Message, name: (PeerID) -> String) -> String {
        guard let manifest = try? FileManifest(decoding: message.content) else {
            return "📎 (a file that does not decode)"
        }
        let size = byteCount(manifest.size)
        let line =
            manifest.picture.map { "🖼 \(manifest.name) (\($0.width)×\($0.height), \(size))" }
            ?? "📎 \(manifest.name) (\(size))"
        return manifest.caption.isEmpty ? line : "\(line) — \(Mentions.rendered(manifest.caption, name: name))"
    }

    /// "512 bytes", "88 KiB", "1.2 MiB", "3.4 GiB".
    public static func byteCount(_ bytes: UInt64) -> String {
        if bytes < 1_024 { return "\(bytes) bytes" }
        let units = ["KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes) / 1_024
        var unit = 0
        while value >= 1_024, unit < units.count - 1 {
            value /= 1_024
            unit += 1
        }
        let rounded = value < 10 ? (value * 10).rounded() / 10 : value.rounded()
        let text = rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
        return "\(text) \(units[unit])"
    }

    /// "📊 Where? (Lake · Hills · Town)" for an options poll, "📊 Pizza? (up/down)" for a yes/no one.
    static func question(_ message: Message) -> String {
        switch try? Poll(message) {
        case let .options(spec): "📊 \(spec.question) (\(spec.options.joined(separator: " · ")))"
        case let .yesNo(question): "📊 \(question) (up/down)"
        case let .secret(secret):
            "🗳 secret ballot: \(secret.text) (\(secret.choiceTexts.joined(separator: secret.choiceIDs == ["up", "down"] ? "/" : " · ")))"
        case nil: "📊 (a poll that does not decode)"
        }
    }

    /// "voted Lake · Hills"; in an anonymous poll only "voted", since the choice is the secret.
    static func ballot(_ message: Message, poll: Poll?) -> String {
        guard let ids = try? PollSelection.decode(message.content) else {
            return "voted (a ballot that does not decode)"
        }
        if ids.isEmpty { return "withdrew their vote" }
        guard let spec = poll?.spec else { return "voted" }
        if spec.anonymous { return "voted" }
        let texts = ids.map { id in
            spec.options.indices.first { PollSpec.optionID(index: $0) == id }.map { spec.options[$0] }
                ?? "a suggested option"
        }
        return "voted " + texts.joined(separator: " · ")
    }

    static func reaction(_ message: Message) -> String {
        guard let content = try? ReactionContent.decode(message.content) else {
            return "reacted (a reaction that does not decode)"
        }
        if content.removed { return "took back \(content.type)" }
        return "reacted \(content.type)" + (content.score == 1 ? "" : " (\(content.score))")
    }

    static func membership(_ message: Message, name: (PeerID) -> String) -> String {
        guard let change = try? MembershipChange(decoding: message.content) else {
            return "(a membership change that does not decode)"
        }
        return "members are now \(change.members.map(name).sorted().joined(separator: ", ")) (epoch \(change.epoch))"
    }

    private static func quoted(_ text: String) -> String { "'\(text.trimmingWhitespace)'" }
}
