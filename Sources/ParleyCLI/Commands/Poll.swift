import ArgumentParser
import ParleyAPI
import ParleyControlSocket
import ParleyTerminal

struct Poll: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Polls: yes/no (up or down), or with options, limits, answers, suggestions and closing.",
        subcommands: [
            Create.self, Vote.self, Unvote.self, Answer.self, Suggest.self, Close.self, Results.self, Votes.self,
        ])
}

/// CHAT and POLL, shared by every subcommand that acts on a poll.
struct PollTarget: ParsableArguments {
    @Argument(help: "The chat (id prefix or title).") var chat: String
    @Argument(help: "The poll's message id (a unique prefix is enough).") var poll: String
}

extension Poll {
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Post a poll and say so; piped, it prints the poll's id alone (with --json, the poll's view). Without --option it is a yes/no poll."
        )
        @Argument(help: "The chat.") var chat: String
        @Argument(help: "The question.") var question: String
        @Option(name: .customLong("option"), help: "An option; repeat for each (at least two).") var choices: [String] =
            []
        @Option(help: "A longer description.") var description: String?
        // Unconditional: "--max-votes -1" is refused as a number below 1, not read as a short flag.
        @Option(parsing: .unconditional, help: "How many options one person may select (1 or more).") var maxVotes: Int?
        @Flag(help: "One option per person; a new vote replaces the old one.") var unique = false
        @Flag(
            help:
                "Show counts only, not who voted what. Members' nodes still receive every vote and can tell; for a ballot no one can trace, use --secret."
        )
        var anonymous = false
        @Flag(help: "Let people add comments (answers).") var allowAnswers = false
        @Flag(help: "Let people add options.") var allowSuggestions = false
        @Option(help: "When voting ends: ISO-8601 (2026-11-23T18:00:00Z) or relative (+30s, +10m, +2h, +1d).")
        var closesAt: String?
        @Flag(
            help:
                "A secret ballot: no one, not even the other members, can tell who voted what; counts appear at the close (needs --closes-at, and at least 3 members besides you with running nodes)."
        )
        var secret = false
        @OptionGroup var options: ClientOptions

        func validate() throws {
            if let maxVotes, maxVotes < 1 {
                throw ValidationError("--max-votes must be a positive number, not \(maxVotes)")
            }
        }

        func run() async throws {
            let closes = try closesAt.map { try PollTime.parse($0) }
            let request = APIRequest.pollCreate(
                chat: chat, question: question, options: choices.isEmpty ? nil : choices, description: description,
                maxVotes: maxVotes,
                unique: unique, anonymous: anonymous, allowAnswers: allowAnswers, allowSuggestions: allowSuggestions,
                closesAtMillis: closes,
                secret: secret)
            try await runPosting(request, options: options, as: PollResultsView.self, id: \.id)
        }
    }

    struct Vote: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Vote: up|down on a yes/no poll (once), or options by id or text; on a secret poll, once and for good.")
        @OptionGroup var target: PollTarget
        @Argument(help: "up or down; or one or more options.") var choices: [String]
        @Flag(
            help:
                "On a secret poll: keep your choice on this node after the close (by default only that you voted stays)."
        )
        var keepChoice = false
        @OptionGroup var options: ClientOptions

        func run() async throws {
            // One request for every kind of poll: the node decides from the poll whether it is secret.
            let request = APIRequest.pollVote(
                chat: target.chat, poll: target.poll, choices: choices, keepChoice: keepChoice ? true : nil)
            let vote = try await ControlClient.callOnce(request, options: options, as: VoteView.self)
            guard let ballot = vote.secretBallot, !options.json else {
                return try Done.report(request, id: vote.votedID, view: vote, json: options.json)
            }
            print(SafeText.display(Render.secretBallot(ballot, poll: vote.poll)))
        }
    }

    struct Unvote: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove your vote for OPTION, or your whole vote.")
        @OptionGroup var target: PollTarget
        @Argument(help: "The option to remove (all when omitted).") var option: String?
        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await runPosting(.pollUnvote(chat: target.chat, poll: target.poll, option: option), options: options)
        }
    }

    struct Answer: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Comment on a poll that allows answers.")
        @OptionGroup var target: PollTarget
        @Argument(help: "The comment.") var text: String
        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await runPosting(.pollAnswer(chat: target.chat, poll: target.poll, text: text), options: options)
        }
    }

    struct Suggest: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add an option to a poll that allows suggestions.")
        @OptionGroup var target: PollTarget
        @Argument(help: "The new option.") var text: String
        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await runPosting(.pollSuggest(chat: target.chat, poll: target.poll, text: text), options: options)
        }
    }

    struct Close: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Close a poll you created.")
        @OptionGroup var target: PollTarget
        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await runPosting(.pollClose(chat: target.chat, poll: target.poll), options: options)
        }
    }

    struct Results: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The poll's results, computed from its messages.")
        @OptionGroup var target: PollTarget
        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await runRequest(
                .pollResults(chat: target.chat, poll: target.poll), options: options, as: PollResultsView.self,
                text: Render.poll)
        }
    }

    struct Votes: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Page through the counted votes (or answers), newest first.")
        @OptionGroup var target: PollTarget
        @Option(help: "Only votes for this option.") var option: String?
        @Flag(help: "List answers instead of votes.") var answers = false
        // Unconditional: "--limit -1" is refused as a number below 1, not read as a short flag.
        @Option(parsing: .unconditional, help: "Items per page (1 or more).") var limit = 25
        @Option(help: "The cursor printed after the previous page.") var before: String?
        @OptionGroup var options: ClientOptions

        func validate() throws {
            if limit < 1 { throw ValidationError("--limit must be a positive number, not \(limit)") }
        }

        func run() async throws {
            let request = APIRequest.pollVotes(
                chat: target.chat, poll: target.poll, option: option, answers: answers, limit: limit, before: before)
            try await runRequest(request, options: options, as: PollVotesView.self, text: Render.votes)
        }
    }
}
