import ParleyNode

/// Text output shared by the commands and `parley open`.
enum Render {
    static func name(_ id: String, _ name: String?) -> String { name ?? String(id.prefix(8)) }

    static func line(_ message: MessageView) -> String {
        let who = name(message.author, message.authorName)
        let tag = message.tag == "Text" ? "" : " <\(message.tag)>"
        let refs = message.references.isEmpty ? "" : " → " + message.references.map { "\($0.id.prefix(8)):\($0.tag)" }.joined(separator: ",")
        return "#\(message.localNumber) \(message.id.prefix(12)) \(who)\(tag): \(message.text)\(refs)"
    }

    static func poll(_ poll: PollResultsView) -> String {
        var lines = ["poll \(poll.id.prefix(12)) by \(name(poll.author, poll.authorName)): \(poll.question)"]
        lines.append("  up \(poll.up)  down \(poll.down)")
        if !poll.voters.isEmpty {
            lines.append("  voters: " + poll.voters.map { "\(name($0.id, $0.name)) \($0.vote)" }.joined(separator: ", "))
        }
        if let mine = poll.myVote { lines.append("  you voted \(mine)") }
        return lines.joined(separator: "\n")
    }
}
