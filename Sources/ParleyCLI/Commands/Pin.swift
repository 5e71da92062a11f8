import ArgumentParser
import ParleyAPI

struct Pin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Pin a message for the whole chat (any member may) and say so; piped, it prints the pin's id alone.")
    @OptionGroup var target: MessageTarget
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await runPosting(.pin(chat: target.chat, message: target.message, pinned: true), options: options)
    }
}

struct Unpin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Unpin a pinned message for the whole chat.")
    @OptionGroup var target: MessageTarget
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await runPosting(.pin(chat: target.chat, message: target.message, pinned: false), options: options)
    }
}

struct Pins: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List a chat's pinned messages, the latest pin first, with who pinned each.")
    @Argument(help: "The chat (id prefix or title).") var chat: String
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await runRequest(.pins(chat: chat), options: options, as: [PinView].self) {
            AmendmentLines.pins($0, name: Render.name).joined(separator: "\n")
        }
    }
}
