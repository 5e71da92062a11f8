/// A yes/no vote as the tally sees it.
public enum VoteChoice: String, Hashable, Sendable, Codable {
    case up, down

    public var tag: Tag { self == .up ? .pollVoteUp : .pollVoteDown }

    public init?(tag: Tag) {
        switch tag {
        case .pollVoteUp: self = .up
        case .pollVoteDown: self = .down
        default: return nil
        }
    }
}

/// The result of a BBM-style yes/no poll: one ballot per author.
public struct PollTally: Hashable, Sendable {
    public struct Ballot: Hashable, Sendable {
        public let voter: PeerID
        public let choice: VoteChoice
        public let message: MessageID
    }

    public let poll: MessageID
    public let up: Int
    public let down: Int
    /// Counted ballots, sorted by voter.
    public let ballots: [Ballot]
    /// The creator's close, if any.
    public let close: PollClose?
    /// Voters whose latest vote is outside the close (it does not count; an earlier one inside may).
    public let lateVoters: Set<PeerID>

    /// Closed by its creator.
    public var closed: Bool { close != nil }

    public func choice(of voter: PeerID) -> VoteChoice? { ballots.first { $0.voter == voter }?.choice }
}

/// The tally rule: a pure function of the set of messages, so every peer that holds the same
/// messages computes the same result, whatever order they arrived in and whoever floods votes.
public enum PollRules {
    /// - Parameters:
    ///   - poll: the referenced message; if it is not a "Poll", nothing counts.
    ///   - candidates: messages that reference the poll (any order, duplicates allowed, any tags).
    public static func tally(poll: Message, candidates: some Sequence<Message>) -> PollTally {
        let candidates = Array(candidates)
        return tally(poll: poll, votes: candidates.filter { counts($0, for: poll) }, closes: candidates)
    }

    /// The same rule, given the votes (a vote tag) that reference the poll, in its chat, through a
    /// reference carrying their own tag (what the store's reference index finds directly), and the
    /// messages that may close it (`winningClose` picks the one that counts).
    public static func tally<Event: PollEvent>(poll: Message, votes: [Event], closes: [Message]) -> PollTally {
        guard poll.tag == .poll else {
            return PollTally(poll: poll.id, up: 0, down: 0, ballots: [], close: nil, lateVoters: [])
        }
        let votes = votes.filter { VoteChoice(tag: $0.tag) != nil }
        // Once the creator closed it, only votes the close covers count (docs/POLLS.md).
        let close = winningClose(of: poll, among: closes)
        let latest = latestByAuthor(close.map { close in votes.filter(close.admits) } ?? votes)
        let lateVoters =
            close.map { close in Set(latestByAuthor(votes).values.filter { !close.admits($0) }.map(\.author)) } ?? []
        let ballots = latest.values
            .compactMap { vote in
                VoteChoice(tag: vote.tag).map { PollTally.Ballot(voter: vote.author, choice: $0, message: vote.id) }
            }
            .sorted { $0.voter < $1.voter }
        let up = ballots.count { $0.choice == .up }
        return PollTally(
            poll: poll.id, up: up, down: ballots.count - up, ballots: ballots, close: close, lateVoters: lateVoters)
    }

    /// The same rule, given each author's latest vote with closes ignored (the store's open ballots;
    /// any superset of them works too). While the creator has not closed the poll those are the
    /// ballots; once they have, a voter's latest vote may be outside the close and an earlier one
    /// count instead, so this returns nil: tally every vote with `tally(poll:votes:closes:)` then.
    public static func tally<Event: PollEvent>(poll: Message, openBallots: [Event], closes: [Message]) -> PollTally? {
        guard poll.tag != .poll || winningClose(of: poll, among: closes) == nil else { return nil }
        return tally(poll: poll, votes: openBallots, closes: [])
    }

    /// Whether messages with `tag` change a poll: votes of both kinds, closes, answers, suggestions,
    /// and a secret poll's ballots, commitments and reveals.
    public static func changesAPoll(_ tag: Tag) -> Bool {
        [
            .pollVote, .pollVoteUp, .pollVoteDown, .pollClose, .pollAnswer, .pollSuggestion, .pollSecretBallot,
            .pollBallotCommit, .pollBallotReveal,
        ]
        .contains(tag)
    }

    /// The polls `message` changes: those it references with its own tag, when that tag changes a poll.
    /// It counts on one of them only if that one is a poll in the same chat.
    public static func pollTargets(of message: Message) -> [MessageID] {
        guard changesAPoll(message.tag) else { return [] }
        return message.references.filter { $0.tag == message.tag }.map(\.id)
    }

    /// The messages `message` is a yes/no vote on (`pollTargets` of a `PollVoteUp`/`PollVoteDown`).
    public static func voteTargets(of message: Message) -> [MessageID] {
        VoteChoice(tag: message.tag) == nil ? [] : pollTargets(of: message)
    }

    /// A vote counts only in its poll's chat, with a vote tag, and through a reference that carries that tag.
    static func counts(_ vote: Message, for poll: Message) -> Bool {
        vote.chat == poll.chat && voteTargets(of: vote).contains(poll.id)
    }

    /// Each author's latest message: their ballot.
    static func latestByAuthor<Event: PollEvent>(_ votes: [Event]) -> [PeerID: Event] {
        var latest: [PeerID: Event] = [:]
        for vote in votes where latest[vote.author].map({ isLater(vote, than: $0) }) ?? true {
            latest[vote.author] = vote
        }
        return latest
    }

    /// Of two messages by one author, the later in that author's own chain: by sequence, which the
    /// author signs and cannot reuse, then by the larger message id, so even an author that signs two
    /// messages for one sequence resolves the same everywhere. A claimed Lamport clock plays no part:
    /// a member could otherwise make an old ballot outrank its new one on every node.
    public static func isLater(_ lhs: some PollEvent, than rhs: some PollEvent) -> Bool {
        (lhs.sequence, lhs.id) > (rhs.sequence, rhs.id)
    }
}
