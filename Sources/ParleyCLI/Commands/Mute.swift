import ArgumentParser
import ParleyAPI
import ParleyTerminal

struct Mute: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Mute a chat on this node (no notifications, not in unread totals), or unmute it with --off.",
        discussion: "Muting is local: it is kept by this node and never sent to anyone.")

    @Argument(help: "The chat (id prefix or title).")
    var chat: String

    @Flag(help: "Unmute the chat.")
    var off = false

    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await runRequest(.chatMute(chat: chat, muted: !off), options: options, as: ChatView.self) { view in
            "\(view.muted ? "muted" : "unmuted") '\(SafeText.singleLine(view.name))' (id \(view.id.prefix(8)))"
        }
    }
}
