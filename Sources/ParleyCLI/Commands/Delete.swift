import ArgumentParser
import ParleyAPI

struct Delete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Delete a message for everyone (yours, or any as the chat's creator), or with --for-me from your views only.",
        discussion: """
            For everyone, every member's node stops showing the message and shows "message deleted" instead; \
            a member's node that was changed to keep it may still have it. --for-me sends nothing.
            """)
    @OptionGroup var target: MessageTarget
    @Flag(help: "Hide it from your own views, on this node only.") var forMe = false
    @OptionGroup var options: ClientOptions

    func run() async throws {
        if forMe {
            try await runRequest(
                .deleteForMe(chat: target.chat, message: target.message), options: options,
                as: DeletedForMeView.self, text: { "deleted \($0.message.prefix(Done.idLength)) for you" })
        } else {
            try await runPosting(.delete(chat: target.chat, message: target.message), options: options)
        }
    }
}
