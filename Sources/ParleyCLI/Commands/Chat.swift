import ArgumentParser
import ParleyNode

struct Chat: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create and list chats.", subcommands: [Create.self, List.self])
}

extension Chat {
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a chat; prints its id.")

        @Argument(help: "The chat's title.")
        var title: String

        @Option(name: .customLong("member"), help: "A member (contact name or id); repeat for each.")
        var members: [String] = []

        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await runRequest(.chatCreate(title: title, members: members), options: options, as: ChatView.self) { $0.id }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List your chats.")
        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await runRequest(.chatList, options: options, as: [ChatView].self) { chats in
                guard !chats.isEmpty else { return "(no chats)" }
                return chats.map { chat in
                    let members = chat.members.map { $0.name ?? String($0.id.prefix(8)) }.joined(separator: ", ")
                    let last = chat.lastMessage.map { " — last: \(Render.line($0))" } ?? ""
                    return "\(chat.id.prefix(12))  \(chat.title)  [\(members)]  \(chat.messageCount) messages\(last)"
                }.joined(separator: "\n")
            }
        }
    }
}
