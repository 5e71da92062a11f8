import ParleyAPI

extension Render {
    static func reactions(_ view: ReactionsView) -> String {
        var lines = view.groups.map { group in
            "\(group.mine ? "*" : " ") \(group.type) ×\(group.count)  score \(group.score)"
        }
        lines += view.reactions.map {
            "    \($0.type) by \(name($0.authorId, $0.author == $0.authorId ? nil : $0.author)), score \($0.score)"
        }
        if let next = view.next { lines.append("more: --before \(next)") }
        return lines.isEmpty ? "(no reactions)" : lines.joined(separator: "\n")
    }

    /// One line for `parley open`: "reactions on ab12cd34ef56: 👍 3* · ❤️ 1".
    static func reactionGroups(_ view: ReactionGroupsView) -> String {
        let groups = view.groups.map { "\($0.type) \($0.count)\($0.mine ? "*" : "")" }
        return "reactions on \(view.message.prefix(12)): " + (groups.isEmpty ? "none" : groups.joined(separator: " · "))
    }
}
