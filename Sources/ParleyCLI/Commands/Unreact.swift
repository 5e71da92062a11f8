import ArgumentParser
import ParleyAPI

struct Unreact: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Remove your reaction of TYPE from a message and say so; piped, it prints the removal's id alone.")
    @OptionGroup var target: ReactionTarget
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await runPosting(.unreact(chat: target.chat, message: target.message, type: target.type), options: options)
    }
}
