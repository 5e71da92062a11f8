public import ParleyCore
public import ParleyStore

/// A poll as this node sees it now: the poll message, its computed state, and this user's part.
public struct PollSnapshot: Sendable, Hashable {
    public enum State: Sendable, Hashable {
        /// A BBM yes/no poll.
        case yesNo(PollTally)
        /// An options poll (docs/POLLS.md).
        case options(PollOutcome)
    }

    public let poll: StoredMessage
    public let state: State
    /// The question, for both kinds.
    public let question: String
    public let phase: PollPhase
    /// This user's counted selection: option ids, or "up"/"down".
    public let ownVotes: [String]
    /// Whether this user's latest ballot counts, or came after the creator's close; nil without one.
    public let ownBallot: BallotStanding?

    /// Closed by its creator: the result is final.
    public var isClosed: Bool { phase == .closed }

    public var outcome: PollOutcome? { if case let .options(outcome) = state { outcome } else { nil } }
    public var tally: PollTally? { if case let .yesNo(tally) = state { tally } else { nil } }
}

/// Where a voter's latest ballot stands against the poll's close.
public enum BallotStanding: String, Sendable, Hashable, Codable {
    /// Counted: the poll is open, or the close covers it.
    case counted
    /// Sent after the creator's close (or not received by the creator before it): not counted.
    case afterClose
}

/// Keys of the local data the node itself keeps on a poll.
public enum LocalDataKey {
    /// A yes/no vote cast from this node: "up" or "down".
    public static let pollVote = "pollVote"
    /// This node's last ballot on an options poll: option ids joined by ",".
    public static let pollBallot = "pollBallot"
}

/// One page of `Node.pollVotes`: newest first; pass `nextCursor` as `before` for the next page.
public struct PollVotePage: Sendable, Hashable {
    public struct Item: Sendable, Hashable {
        /// nil in anonymous polls.
        public let author: PeerID?
        /// The selected option ids, or the answer's text in `text`.
        public let options: [String]
        public let text: String?
        public let message: MessageID
        public let timestampMillis: Int64
    }

    public let items: [Item]
    public let nextCursor: String?
}
