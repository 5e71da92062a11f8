/// Every counted reaction on one message, from which groups and pages are derived.
public struct ReactionSummary: Hashable, Sendable {
    public let target: MessageID
    /// Newest first by (lamport, message id).
    public let reactions: [Reaction]

    /// One group per type with at least one counted reaction.
    public func groups(viewer: PeerID, sortedBy sort: ReactionSort = .count) -> [ReactionGroup] {
        Dictionary(grouping: reactions, by: \.type).map { type, members in
            ReactionGroup(
                type: type, count: members.count, score: members.reduce(0) { $0 + $1.score },
                firstAtMillis: members.map(\.timestampMillis).min() ?? 0,
                lastAtMillis: members.map(\.timestampMillis).max() ?? 0,
                mine: members.contains { $0.author == viewer })
        }.sorted(by: sort.precedes)
    }

    /// The types `author`'s counted reactions have.
    public func types(of author: PeerID) -> Set<ReactionType> {
        Set(reactions.filter { $0.author == author }.map(\.type))
    }

    public func reaction(of author: PeerID, type: ReactionType) -> Reaction? {
        reactions.first { $0.author == author && $0.type == type }
    }

    /// Counted reactions matching the filters, newest first, strictly older than `before`.
    public func page(type: ReactionType? = nil, author: PeerID? = nil, limit: Int, before: PageCursor? = nil)
        throws(CoreError) -> ReactionPage
    {
        guard limit > 0 else { throw .invalid("the page limit must be positive") }
        let matching = reactions.filter { reaction in
            type.map { $0 == reaction.type } ?? true && author.map { $0 == reaction.author } ?? true
                && before.map { reaction.cursor < $0 } ?? true
        }
        let items = Array(matching.prefix(limit))
        return ReactionPage(items: items, next: matching.count > limit ? items.last?.cursor : nil)
    }
}
