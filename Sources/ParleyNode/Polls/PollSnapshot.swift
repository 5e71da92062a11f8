public import ParleyCore
public import ParleyStore

/// A poll as this node sees it now: the poll message, its computed state, and this user's part.
public struct PollSnapshot: Sendable, Hashable {
    /// The poll's computed state, by kind.
    public enum State: Sendable, Hashable {
        /// A BBM yes/no poll.
        case yesNo(PollTally)
        /// An options poll (docs/POLLS.md).
        case options(PollOutcome)
        /// A secret poll (docs/BALLOTS.md): its question and electorate, and where its count stands.
        /// `tally` or `outcome` read its counts, zero until `resultsFinal`.
        case secret(SecretPoll, SecretPollStatus)
    }

    /// The "Poll" message itself.
    public let poll: StoredMessage
    /// The tally or outcome computed from the messages referencing the poll.
    public let state: State
    /// The question, for both kinds.
    public let question: String
    /// Open, closing (past its closing time, no close yet) or closed.
    public let phase: PollPhase
    /// This user's counted selection: option ids, or "up"/"down".
    public let ownVotes: [String]
    /// Whether this user's latest ballot counts, or came after the creator's close; nil without one.
    public let ownBallot: BallotStanding?
    /// Set when members who took part signed two histories (PROTOCOL.md §4.4): who, and whether the
    /// creator did, which leaves the poll disputed.
    public var disputes: PollDisputes? = nil

    /// Closed by its creator: the result is final.
    public var isClosed: Bool { phase == .closed }

    /// Set for a secret poll: its electorate, its count's standing and this user's ballot.
    public var secret: SecretPollStatus? { if case let .secret(_, status) = state { status } else { nil } }

    /// The counts in the shape of the question, for every kind: a secret poll's read zero until
    /// `resultsFinal`.
    public enum Counts: Sendable, Hashable {
        case yesNo(PollTally)
        case options(PollOutcome)
    }

    public var counts: Counts {
        switch state {
        case let .yesNo(tally): .yesNo(tally)
        case let .options(outcome): .options(outcome)
        case let .secret(poll, status):
            switch poll.question {
            case .yesNo: .yesNo(status.tally.asYesNoTally())
            case let .options(spec): .options(status.tally.asOutcome(spec: spec))
            }
        }
    }

    /// The outcome of an options poll, secret or not; nil for a yes/no poll.
    public var outcome: PollOutcome? { if case let .options(outcome) = counts { outcome } else { nil } }
    /// The tally of a yes/no poll, secret or not; nil for an options poll.
    public var tally: PollTally? { if case let .yesNo(tally) = counts { tally } else { nil } }
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
    /// The secret ballot this node cast (hex of its encoding), kept to send the same bytes again
    /// until the poll closes, then erased (it holds the choice and finds the published ballot).
    public static let secretBallot = "secretBallot"
    /// Set at a secret poll's close, when the node erases its choice: that this user voted, nothing
    /// about how (docs/BALLOTS.md §4, "After the close").
    public static let secretVoted = "secretVoted"
    /// Set when the user asked, at casting, to keep its secret choice after the close.
    public static let secretKeepChoice = "secretKeepChoice"
    /// Prefix of a ballot this node holds as a relay until the poll's closing time ("heldBallot." and the
    /// ballot's id in hex; the value is the ballot in hex).
    public static let heldBallotPrefix = "heldBallot."
    /// Set on the creator's node once it published a secret poll's batch: ballots that reach it
    /// later wait for the late batch at the close, and go out only with others (BALLOTS.md §4).
    public static let secretBatchPublished = "secretBatchPublished"
    /// A publisher's commitment to the ballots it handed on (lines of salt and ballot, in hex), kept
    /// until the creator's close to reveal any the creator did not publish (BALLOTS.md §4).
    public static let ballotCommitment = "ballotCommitment"
    /// Set when this user deleted the message for itself: history views leave it out (the store's
    /// `MessageCriteria.withoutDeletedForMe` reads the same key).
    public static let deletedForMe = MessageCriteria.deletedForMeKey

    /// What the node keeps under `key`, if it is one of the node's own.
    public static func purpose(of key: String) -> String? {
        reserved[key] ?? (key.hasPrefix(heldBallotPrefix) ? reserved[heldBallotPrefix + "*"] : nil)
    }

    /// The keys the node itself writes, with what each is for. Front ends may read them, but
    /// `Node.setLocalData` and `Node.deleteLocalData` refuse them: `pollVote` is the one-vote guard,
    /// and a user's value there would let a second vote through or refuse a first one. A key the
    /// node starts to write must be added here.
    public static let reserved: [String: String] = [
        pollVote: "the guard against a second vote on a yes/no poll",
        pollBallot: "this node's ballot on an options poll",
        secretBallot: "this node's secret ballot, kept to send it again until the close",
        secretVoted: "that this node cast a secret ballot, kept instead of its choice after the close",
        secretKeepChoice: "the user asked to keep its secret choice after the close",
        heldBallotPrefix + "*": "a secret ballot this node relays at the poll's closing time",
        secretBatchPublished: "this node, the poll's creator, published its batch of secret ballots",
        ballotCommitment: "the secret ballots this node committed to handing on, kept until the close",
        deletedForMe: "this user deleted the message for itself: its views leave it out",
    ]
}

/// One page of `Node.pollVotes`: newest first; pass `nextCursor` as `before` for the next page.
public struct PollVotePage: Sendable, Hashable {
    /// One counted ballot, or one accepted answer.
    public struct Item: Sendable, Hashable {
        /// nil in anonymous polls.
        public let author: PeerID?
        /// The selected option ids, or the answer's text in `text`.
        public let options: [String]
        /// The answer's text; nil for a ballot.
        public let text: String?
        /// The ballot or answer message.
        public let message: MessageID
        /// When its author says it was sent (Unix milliseconds).
        public let timestampMillis: Int64
    }

    /// This page's ballots or answers, newest first.
    public let items: [Item]
    /// Pass as `before` for the next page; nil on the last page.
    public let nextCursor: String?
}
