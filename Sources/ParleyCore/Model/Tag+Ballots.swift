extension Tag {
    /// A member's ballot key in this chat (32 bytes, a ristretto255 point), which secret polls list in
    /// their electorate. A node publishes its own when a secret poll is prepared in the chat, or when
    /// it sees another member's (docs/BALLOTS.md §1).
    public static let ballotKey = Tag(known: "BallotKey")
    /// A secret ballot (`SecretBallot`), published by the poll's creator in one batch after the closing
    /// time, not by its voter.
    public static let pollSecretBallot = Tag(known: "PollSecretBallot")
    /// A publisher's commitment, at the closing time, to the ballots it holds for a secret poll
    /// (`BallotCommitment`), so that a creator that leaves one out can be shown to (docs/BALLOTS.md §4).
    public static let pollBallotCommit = Tag(known: "PollBallotCommit")
    /// A publisher's reveal, after the close, of a ballot it committed to that the creator did not
    /// publish (`BallotReveal`).
    public static let pollBallotReveal = Tag(known: "PollBallotReveal")
}
