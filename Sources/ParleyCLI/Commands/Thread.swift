import ArgumentParser
import ParleyAPI

struct ThreadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thread", abstract: "Show a message and its replies, in history order.",
        discussion: "Reply with `parley send CHAT TEXT --ref MESSAGE`.")
    @OptionGroup var target: MessageTarget
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await runRequest(
            .thread(chat: target.chat, message: target.message), options: options, as: ThreadView.self,
            text: { Render.thread($0).joined(separator: "\n") })
    }
}
