import ParleyAPI

/// A vote from any front end of the CLI: a secret poll's ballot is not a message of this user's
/// (it goes out through relays), so the poll's kind decides the request.
enum Voting {
    enum Outcome: Sendable {
        case posted(MessageView)
        case secret(SecretBallotView)
    }

    static func vote(chat: String, poll: String, choices: [String], options: some NodeConnecting) async throws -> Outcome {
        let results = try await ControlClient.callOnce(.pollResults(chat: chat, poll: poll), options: options, as: PollResultsView.self)
        if results.secret != nil {
            let request = APIRequest.pollSecretVote(chat: chat, poll: poll, choices: choices)
            return .secret(try await ControlClient.callOnce(request, options: options, as: SecretBallotView.self))
        }
        let request = APIRequest.pollVote(chat: chat, poll: poll, choices: choices)
        return .posted(try await ControlClient.callOnce(request, options: options, as: MessageView.self))
    }
}
