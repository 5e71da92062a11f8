import ArgumentParser
import ParleyAPI

struct Reactions: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A message's reaction groups and its reactions, newest first.")
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
        guard ["count", "score", "first", "last"].contains(sort) else {
            throw ValidationError("--sort is one of count, score, first, last")
        }
        guard limit > 0 else { throw ValidationError("--limit must be a positive number, not \(limit)") }
    }

    func run() async throws {
        let request = APIRequest.reactions(
            chat: chat, message: message, type: type, author: author, sort: sort, limit: limit, before: before)
        try await runRequest(request, options: options, as: ReactionsView.self, text: Render.reactions)
    }
}
