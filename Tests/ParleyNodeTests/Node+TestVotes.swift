import ParleyCore
import ParleyNode
import ParleyStore
import Testing

/// `Node.vote` answers by the poll's kind; a test knows which kind it made.
extension Node {
    /// A vote on a yes/no or options poll: its message.
    func postVote(chat: ChatID, poll: MessageID, choices: [String]) async throws -> StoredMessage {
        try #require(
            try await vote(chat: chat, poll: poll, choices: choices).message, "a secret ballot, not a vote message")
    }

    /// A vote on a secret poll: the ballot cast.
    func castSecretBallot(chat: ChatID, poll: MessageID, choices: [String], keepChoice: Bool = false) async throws
        -> SecretBallotCast
    {
        try #require(
            try await vote(chat: chat, poll: poll, choices: choices, keepChoice: keepChoice).secretBallot,
            "a vote message, not a secret ballot")
    }
}
