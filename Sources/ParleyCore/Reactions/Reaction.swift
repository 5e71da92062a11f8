/// A counted reaction: the latest add of one author for one type on a message.
public struct Reaction: Hashable, Sendable {
    public let author: PeerID
    public let type: ReactionType
    public let score: Int
    public let message: MessageID
    public let lamport: UInt64
    public let timestampMillis: Int64

    /// Newest first: by (lamport, message id), both descending.
    var cursor: PageCursor { PageCursor(lamport: lamport, id: message) }
}
