public import ParleyCrypto

/// Finding forks in what a node just stored, and the branches that prove them (`ForkProof`).
/// Pure: the node gives it the messages it stored and what its store holds around them.
public enum ForkEvidence {
    /// A slot two branches disagree about: `lower` is the author's message at the slot; `upper` is
    /// another message at the slot, or the message above it naming another `previous`.
    public struct Conflict: Sendable, Hashable {
        public let lower: Message
        public let upper: Message

        public init(lower: Message, upper: Message) {
            self.lower = lower
            self.upper = upper
        }
    }

    /// Whether `upper`, the author's message right above `lower`, names another message as its
    /// previous one (or none at all, while `lower` exists): the author signed two histories.
    public static func disagree(lower: Message, upper: Message) -> Bool {
        upper.chat == lower.chat && upper.author == lower.author && lower.sequence < UInt64.max
            && upper.sequence == lower.sequence + 1
            && upper.previous != lower.id
    }

    /// The conflicts inside one author's messages of a batch, taken in sequence order: each pair of
    /// neighbours that does not link.
    public static func conflicts(within lane: [Message]) -> [Conflict] {
        let sorted = lane.sorted { $0.sequence < $1.sequence }
        return zip(sorted, sorted.dropFirst()).compactMap { lower, upper in
            disagree(lower: lower, upper: upper) ? Conflict(lower: lower, upper: upper) : nil
        }
    }

    /// The run from `start` upward through `pool` (its author's messages in the chat), each naming the
    /// one before it, to the first signed head: the branch a proof carries. Nil when the run breaks,
    /// or ends too far up (`ForkProof.maxBranchMessages`), before a head.
    public static func branch(from start: Message, through pool: [Message]) -> [Message]? {
        var bySequence: [UInt64: [Message]] = [:]
        for message in pool where message.chat == start.chat && message.author == start.author {
            bySequence[message.sequence, default: []].append(message)
        }
        var run = [start]
        var current = start
        while !current.isHead {
            guard run.count < ForkProof.maxBranchMessages, current.sequence < UInt64.max else { return nil }
            let above = bySequence[current.sequence + 1] ?? []
            // A signed copy ends the run sooner than a chained one with the same id.
            guard
                let next = above.first(where: { $0.previous == current.id && $0.isHead })
                    ?? above.first(where: { $0.previous == current.id })
            else {
                return nil
            }
            run.append(next)
            current = next
        }
        return run
    }

    /// A proof of `conflict` from the branches `pool` holds, or nil when either branch cannot be
    /// completed to a head (the proof is made later, from what sync brings).
    public static func proof(of conflict: Conflict, through pool: [Message]) -> ForkProof? {
        guard let first = branch(from: conflict.lower, through: pool),
            let second = branch(from: conflict.upper, through: pool)
        else { return nil }
        return try? ForkProof(first: first, second: second)
    }
}
