import ArgumentParser
import ParleyAPI
import ParleyControlSocket

/// A vote from any front end of the CLI: a secret poll's ballot is not a message of this user's
/// (it goes out through relays), so the poll's kind decides the request.
enum Voting {
    enum Outcome: Sendable {
        case posted(MessageView)
        case secret(SecretBallotView)
    }

    /// - Parameter keepChoice: on a secret poll, keep the choice on this node after the close (by
    ///   default only "you voted" stays); refused on any other poll, where it means nothing.
    static func vote(
        chat: String, poll: String, choices: [String], keepChoice: Bool = false, options: some NodeConnecting
    ) async throws -> Outcome {
        let results = try await ControlClient.callOnce(.pollResults(chat: chat, poll: poll), options: options, as: PollResultsView.self)
        if results.secret != nil {
            let request = APIRequest.pollSecretVote(chat: chat, poll: poll, choices: choices, keepChoice: keepChoice)
            return .secret(try await ControlClient.callOnce(request, options: options, as: SecretBallotView.self))
        }
        guard !keepChoice else { throw ValidationError("--keep-choice is for secret polls: a vote on this poll is a message of yours") }
        let request = APIRequest.pollVote(chat: chat, poll: poll, choices: choices)
        return .posted(try await ControlClient.callOnce(request, options: options, as: MessageView.self))
    }
}
