public import ParleyCore
public import ParleyCrypto

/// What fork proofs (PROTOCOL.md §4.4) take out of a poll, the same on every node holding them.
public struct PollDisputes: Sendable, Hashable {
    /// The poll's creator signed two histories and the poll was not closed before the fork: no
    /// result is final (its closes from the fork on count for nothing, whichever one a node got).
    public let creatorForked: Bool
    /// The chat's members proven to have signed two histories: their votes on the poll from their fork
    /// on count for nothing. All of them, not only those whose votes a node holds: which branch (a vote
    /// or anything else) a node stored differs between nodes, the proofs held do not.
    public let voters: [PeerID]

    public init(creatorForked: Bool, voters: [PeerID]) {
        self.creatorForked = creatorForked
        self.voters = voters
    }

    /// The disputes of `poll` given the chat's forks and whether a close that counts (made before any
    /// fork of the creator) closed it.
    static func of(poll: Message, forks: ChatForks, closed: Bool) -> PollDisputes? {
        guard !forks.isEmpty else { return nil }
        let creatorForked = forks.forkedFrom[poll.author] != nil && (!forks.counts(poll) || !closed)
        return PollDisputes(creatorForked: creatorForked, voters: forks.authors)
    }
}

extension PollSnapshot {
    /// This snapshot with `disputes`; a poll whose creator forked is `disputed`, not open or closed.
    func disputed(_ disputes: PollDisputes?) -> PollSnapshot {
        guard let disputes else { return self }
        var copy = PollSnapshot(
            poll: poll, state: state, question: question, phase: disputes.creatorForked ? .disputed : phase,
            ownVotes: ownVotes, ownBallot: ownBallot)
        copy.disputes = disputes
        return copy
    }
}
