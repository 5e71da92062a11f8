public import ParleyStore

/// What `Node.vote` did, by the poll's kind.
public enum CastVote: Sendable, Hashable {
    /// A yes/no or options vote: a message of this user's, stored and sent to every member.
    case message(StoredMessage)
    /// A secret poll's ballot: no message of this user's carries it; it travels sealed along its paths.
    case secretBallot(SecretBallotCast)

    /// The vote's message; nil for a secret ballot.
    public var message: StoredMessage? { if case let .message(message) = self { message } else { nil } }
    /// The secret ballot; nil for a vote that is a message.
    public var secretBallot: SecretBallotCast? { if case let .secretBallot(cast) = self { cast } else { nil } }
}
