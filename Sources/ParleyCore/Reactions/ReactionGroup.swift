/// The reactions of one type on a message.
public struct ReactionGroup: Hashable, Sendable {
    public let type: ReactionType
    public let count: Int
    /// The sum of the counted reactions' scores.
    public let score: Int
    /// The author timestamps of the earliest and latest counted reactions.
    public let firstAtMillis: Int64
    public let lastAtMillis: Int64
    /// The viewer's own reaction is one of them.
    public let mine: Bool
}
