import ArgumentParser
import ParleyNode

struct Poll: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Yes/no polls: create, vote, tally.", subcommands: [Create.self, Vote.self, Results.self])
}

extension Poll {
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Post a poll; prints its message id.")
        @Argument(help: "The chat.") var chat: String
        @Argument(help: "The question.") var question: String
        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await runRequest(.pollCreate(chat: chat, question: question), options: options, as: MessageView.self) { $0.id }
        }
    }

    struct Vote: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Vote up or down, once.")
        @Argument(help: "The chat.") var chat: String
        @Argument(help: "The poll's message id (a unique prefix is enough).") var poll: String
        @Argument(help: "up or down.") var choice: String
        @OptionGroup var options: ClientOptions

        func validate() throws {
            guard ["up", "down"].contains(choice.lowercased()) else { throw ValidationError("the vote must be 'up' or 'down'") }
        }

        func run() async throws {
            try await runRequest(.pollVote(chat: chat, poll: poll, choice: choice), options: options, as: MessageView.self) { $0.id }
        }
    }

    struct Results: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The poll's tally: one vote per author.")
        @Argument(help: "The chat.") var chat: String
        @Argument(help: "The poll's message id.") var poll: String
        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await runRequest(.pollResults(chat: chat, poll: poll), options: options, as: PollResultsView.self, text: Render.poll)
        }
    }
}

struct Local: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Local data: key/values kept on this node only, never sent.", subcommands: [Get.self, Set.self])
}

extension Local {
    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a message's local value for KEY.")
        @Argument var message: String
        @Argument var key: String
        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await runRequest(.localGet(message: message, key: key), options: options, as: LocalDataView.self) { $0.value ?? "" }
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Set a message's local value for KEY.")
        @Argument var message: String
        @Argument var key: String
        @Argument var value: String
        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await runRequest(.localSet(message: message, key: key, value: value), options: options, as: LocalDataView.self) {
                "\($0.key) = \($0.value ?? "")"
            }
        }
    }
}
