import ArgumentParser
import ParleyAPI

struct Typing: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Tell the chat's connected members you are typing (it lasts a few seconds; send again to refresh).")

    @Argument(help: "The chat (id prefix or title).")
    var chat: String

    @Flag(help: "Say you stopped typing.")
    var stop = false

    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await runRequest(.typing(chat: chat, active: !stop), options: options, as: TypingSentView.self) { sent in
            "\(sent.active ? "typing" : "stopped typing"): told \(sent.recipients) connected member(s)"
        }
    }
}
