public import ParleyCore

/// What a snapshot of a secret poll adds (docs/BALLOTS.md): who may vote, where the count stands,
/// and this user's own ballot. The counts in `PollSnapshot.state` stay at zero until `resultsFinal`.
public struct SecretPollStatus: Sendable, Hashable {
    /// Where this user's ballot is.
    public enum OwnBallot: String, Sendable, Hashable, Codable {
        /// Sealed and sent along its paths; the poll's creator publishes it with every other ballot
        /// after the closing time.
        case relayed
        /// Published in the chat.
        case published
        /// Counted in the final result.
        case counted
        /// The poll closed without it: not published before the creator's close (lost on its way, or
        /// the only ballot to reach the creator after its batch, which is never published alone).
        case notCounted
    }

    /// The members who may vote, sorted.
    public let electorate: [PeerID]
    /// The voter's anonymity set: the electors other than the creator, who reads every ballot before
    /// publishing it. A poll counts only with at least `SecretPoll.minHidingElectors`.
    public let hiddenAmong: Int
    /// The creator's close is here: the counts are final and shown.
    public let resultsFinal: Bool
    /// The tally (zero counts until `resultsFinal`).
    public let tally: SecretTally
    public let ownBallot: OwnBallot?
}

/// One way a secret ballot travels: the first relay knows this user sent an envelope, not what it
/// says; the publisher opens it and knows the ballot, not who cast it.
public struct BallotPath: Sendable, Hashable {
    public let firstRelay: PeerID
    public let publisher: PeerID
}

/// A cast secret ballot: its normalised selection and the paths it went along (two independent ones
/// when four other members were reachable).
public struct SecretBallotCast: Sendable, Hashable {
    public let selection: [String]
    public let paths: [BallotPath]
}
