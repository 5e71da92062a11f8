public import ParleyCore

/// What a snapshot of a secret poll adds (docs/BALLOTS.md): who may vote, where the count stands,
/// and this user's own ballot. The counts in `PollSnapshot.state` stay at zero until `resultsFinal`.
public struct SecretPollStatus: Sendable, Hashable {
    /// Where this user's ballot is.
    public enum OwnBallot: String, Sendable, Hashable, Codable {
        /// Sealed and sent through two relays; the poll's creator publishes it with every other ballot
        /// after the closing time.
        case relayed
        /// Published in the chat.
        case published
        /// Counted in the final result.
        case counted
        /// The poll closed without it (not published before the creator's close).
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
