extension Tag {
    /// A member's ballot key in this chat (32 bytes, a ristretto255 point), which secret polls list in
    /// their electorate. Each node publishes its own when it joins a chat (docs/BALLOTS.md).
    public static let ballotKey = Tag(known: "BallotKey")
    /// A secret ballot (`SecretBallot`), published by the member who relayed it last, not by its voter.
    public static let pollSecretBallot = Tag(known: "PollSecretBallot")
}
