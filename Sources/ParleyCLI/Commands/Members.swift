import ArgumentParser
import ParleyAPI

struct Members: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "A chat's members and who is online now.")

    @Argument(help: "The chat (id prefix or title).")
    var chat: String

    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await runRequest(.members(chat: chat), options: options, as: [MemberPresenceView].self) { members in
            members.map(Render.member).joined(separator: "\n")
        }
    }
}
