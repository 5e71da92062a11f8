import ArgumentParser
import ParleyAPI

struct Edit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Give a Text message of yours a new text and say so; piped, it prints the edit's id alone.",
        discussion: "Every member shows the latest edit; `parley edits CHAT MESSAGE` lists the earlier versions.")
    @OptionGroup var target: MessageTarget
    @Argument(help: "The new text; `@name` of a member mentions them.") var text: String
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await runPosting(.edit(chat: target.chat, message: target.message, text: text), options: options)
    }
}

struct Edits: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List a message's versions: the original text, then each edit, oldest first.")
    @OptionGroup var target: MessageTarget
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await runRequest(
            .edits(chat: target.chat, message: target.message), options: options, as: EditHistoryView.self,
            text: { AmendmentLines.edits($0).joined(separator: "\n") })
    }
}
