import ArgumentParser
import ParleyAPI
import ParleyNode

/// CHAT, MESSAGE and TYPE, shared by `react` and `unreact`.
struct ReactionTarget: ParsableArguments {
    @Argument(help: "The chat (id prefix or title).") var chat: String
    @Argument(help: "The message's id (a unique prefix is enough).") var message: String
    @Argument(help: "The reaction: an emoji or a word (1–64 bytes).") var type: String
}

struct React: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "React to a message with an emoji or a word and say so; piped, it prints the reaction's id alone.")
    @OptionGroup var target: ReactionTarget
    // Unconditional: the value after --score is taken even when it starts with '-', so "--score -3" works
    // (ArgumentParser would read "-3" as a short flag).
    @Option(parsing: .unconditional, help: "The reaction's score (−1000000…1000000).") var score = 1
    @Flag(help: "Replace your other reactions on the message.") var unique = false
    @OptionGroup var options: ClientOptions

    func validate() throws {
        guard (-1_000_000...1_000_000).contains(score) else { throw ValidationError("--score must be between -1000000 and 1000000") }
    }

    func run() async throws {
        try await runPosting(.react(chat: target.chat, message: target.message, type: target.type, score: score, unique: unique), options: options)
    }
}

struct Unreact: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Remove your reaction of TYPE from a message and say so; piped, it prints the removal's id alone.")
    @OptionGroup var target: ReactionTarget
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await runPosting(.unreact(chat: target.chat, message: target.message, type: target.type), options: options)
    }
}

struct Reactions: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "A message's reaction groups and its reactions, newest first.")
    @Argument(help: "The chat (id prefix or title).") var chat: String
    @Argument(help: "The message's id (a unique prefix is enough).") var message: String
    @Option(help: "Only reactions of this type.") var type: String?
    @Option(help: "Only reactions by this person (contact name, your name, or id).") var author: String?
    @Option(help: "Group order: count, score, first or last.") var sort = "count"
    // Unconditional: "--limit -1" is refused as a number below 1, not read as a short flag.
    @Option(parsing: .unconditional, help: "Reactions per page (1 or more).") var limit = 25
    @Option(help: "The cursor printed after the previous page.") var before: String?
    @OptionGroup var options: ClientOptions

    func validate() throws {
        guard ["count", "score", "first", "last"].contains(sort) else { throw ValidationError("--sort is one of count, score, first, last") }
        guard limit > 0 else { throw ValidationError("--limit must be a positive number, not \(limit)") }
    }

    func run() async throws {
        let request = APIRequest.reactions(chat: chat, message: message, type: type, author: author, sort: sort, limit: limit, before: before)
        try await runRequest(request, options: options, as: ReactionsView.self, text: Render.reactions)
    }
}

extension Render {
    static func reactions(_ view: ReactionsView) -> String {
        var lines = view.groups.map { group in
            "\(group.mine ? "*" : " ") \(group.type) ×\(group.count)  score \(group.score)"
        }
        lines += view.reactions.map { "    \($0.type) by \(name($0.authorId, $0.author == $0.authorId ? nil : $0.author)), score \($0.score)" }
        if let next = view.next { lines.append("more: --before \(next)") }
        return lines.isEmpty ? "(no reactions)" : lines.joined(separator: "\n")
    }

    /// One line for `parley open`: "reactions on ab12cd34ef56: 👍 3* · ❤️ 1".
    static func reactionGroups(_ view: ReactionGroupsView) -> String {
        let groups = view.groups.map { "\($0.type) \($0.count)\($0.mine ? "*" : "")" }
        return "reactions on \(view.message.prefix(12)): " + (groups.isEmpty ? "none" : groups.joined(separator: " · "))
    }
}
