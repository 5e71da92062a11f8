import ArgumentParser
import ParleyAPI

/// CHAT, MESSAGE and TYPE, shared by `react` and `unreact`.
struct ReactionTarget: ParsableArguments {
    @Argument(help: "The chat (id prefix or title).") var chat: String
    @Argument(help: "The message's id (a unique prefix is enough).") var message: String
    @Argument(help: "The reaction: an emoji or a word (1–64 bytes).") var type: String
}

struct React: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "React to a message with an emoji or a word and say so; piped, it prints the reaction's id alone.")
    @OptionGroup var target: ReactionTarget
    // Unconditional: the value after --score is taken even when it starts with '-', so "--score -3" works
    // (ArgumentParser would read "-3" as a short flag).
    @Option(parsing: .unconditional, help: "The reaction's score (−1000000…1000000).") var score = 1
    @Flag(help: "Replace your other reactions on the message.") var unique = false
    @OptionGroup var options: ClientOptions

    func validate() throws {
        guard (-1_000_000...1_000_000).contains(score) else {
            throw ValidationError("--score must be between -1000000 and 1000000")
        }
    }

    func run() async throws {
        try await runPosting(
            .react(chat: target.chat, message: target.message, type: target.type, score: score, unique: unique),
            options: options)
    }
}
