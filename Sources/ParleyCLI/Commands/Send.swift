import ArgumentParser
import ParleyAPI

struct Send: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send a message and say so; piped, it prints the message's id alone (with --json, its view).")

    @Argument(help: "The chat (id prefix or title).")
    var chat: String

    @Argument(help: "The message text.")
    var text: String?

    @Option(help: "Send a Custom message: this JSON object or array instead of text.")
    var custom: String?

    @Option(help: "The message's tag.")
    var tag = "Text"

    @Option(name: .customLong("ref"), help: "A referenced message, MESSAGE[:TAG]; repeat for several.")
    var refs: [String] = []

    @OptionGroup var options: ClientOptions

    func validate() throws {
        switch (text, custom) {
        case (nil, nil): throw ValidationError("give the message text, or --custom JSON")
        case (.some, .some): throw ValidationError("give either the message text or --custom JSON, not both")
        case (nil, .some) where tag != "Text":
            throw ValidationError("--custom sends a Custom message; it takes no --tag")
        default: break
        }
    }

    func run() async throws {
        let request: APIRequest =
            if let custom {
                .send(chat: chat, text: custom, tag: "Custom", refs: refs)
            } else {
                .send(chat: chat, text: text ?? "", tag: tag, refs: refs)
            }
        try await runPosting(request, options: options)
    }
}
