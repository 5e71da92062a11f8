/// The reaction rule (docs/REACTIONS.md): a pure function of the set of messages, so every peer
/// holding the same messages computes the same reactions, whatever the arrival order and whatever
/// a hostile member sends.
public enum ReactionRules {
    /// Counted types per author and message; beyond that, the author's latest ones count.
    public static let maxTypesPerAuthor = 32

    private struct Event {
        let message: Message
        let content: ReactionContent
        /// Every comparison here is between one author's own events, so it follows that author's chain:
        /// by sequence, which it signs and cannot reuse, then by id (only a forking author ties). A claimed
        /// Lamport clock would let an old event outrank the author's later removal on every node.
        var key: ChainPosition { ChainPosition(sequence: message.sequence, id: message.id) }
    }

    /// - Parameters:
    ///   - target: the message reacted to.
    ///   - candidates: messages that may reference it (any order, duplicates allowed, any tags).
    public static func summary(target: Message, candidates: some Sequence<Message>) -> ReactionSummary {
        var latest: [PeerID: [ReactionType: Event]] = [:]
        var latestUnique: [PeerID: [ReactionType: Event]] = [:]
        for message in candidates where applies(message, to: target) {
            guard let content = try? ReactionContent.decode(message.content) else { continue }
            let event = Event(message: message, content: content)
            if latest[message.author]?[content.type].map({ $0.key < event.key }) ?? true {
                latest[message.author, default: [:]][content.type] = event
            }
            if content.unique, latestUnique[message.author]?[content.type].map({ $0.key < event.key }) ?? true {
                latestUnique[message.author, default: [:]][content.type] = event
            }
        }
        var counted: [Reaction] = []
        for (author, types) in latest {
            // The two latest unique adds of distinct types: enough to find, for any type, the latest of another type.
            let uniques = (latestUnique[author] ?? [:]).values.sorted { $0.key > $1.key }.prefix(2)
            let adds = types.values.filter { event in
                guard !event.content.removed else { return false }
                let clearing = uniques.first { $0.content.type != event.content.type }
                return clearing.map { $0.key < event.key } ?? true
            }
            counted += adds.sorted { $0.key > $1.key }.prefix(maxTypesPerAuthor).map { event in
                Reaction(
                    author: author, type: event.content.type, score: event.content.score, message: event.message.id,
                    lamport: event.message.lamport, timestampMillis: event.message.timestampMillis)
            }
        }
        return ReactionSummary(target: target.id, reactions: counted.sorted { $0.cursor > $1.cursor })
    }

    /// A reaction applies to a message in its own chat that it references with the tag "Reaction".
    static func applies(_ message: Message, to target: Message) -> Bool {
        message.tag == .reaction && message.chat == target.chat
            && message.references.contains(MessageReference(id: target.id, tag: .reaction))
    }
}

/// Where a message stands in its author's own chain (PROTOCOL §11): by sequence, then by id.
struct ChainPosition: Comparable {
    let sequence: UInt64
    let id: MessageID

    static func < (lhs: Self, rhs: Self) -> Bool { (lhs.sequence, lhs.id) < (rhs.sequence, rhs.id) }
}
