extension Tag {
    /// The command that makes messages of a tag Parley interprets, or nil for a tag anyone may send.
    /// Sent by hand, such a message would bypass the checks its command makes (one vote per user, the
    /// creator-only close), and leave this node's own view at odds with what every peer tallies.
    public var reservedFor: String? {
        switch self {
        case .poll: "poll create"
        case .pollVoteUp, .pollVoteDown, .pollVote: "poll vote (or poll unvote)"
        case .pollClose: "poll close"
        case .pollAnswer: "poll answer"
        case .pollSuggestion: "poll suggest"
        case .pollSecretBallot: "poll vote (on a secret poll)"
        case .pollBallotCommit, .pollBallotReveal: "poll vote (a publisher's node commits and reveals by itself)"
        case .ballotKey: "poll create --secret (the node publishes its ballot key)"
        case .reaction: "react (or unreact)"
        case .membership: "chat add / chat remove"
        case .edit: "edit"
        case .delete: "delete"
        case .pin: "pin (or unpin)"
        case .file: "send --file"
        default: nil
        }
    }
}
