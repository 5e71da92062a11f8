/// What `MessageStore.insert` did with one message of a batch.
public enum InsertOutcome: Sendable, Hashable {
    case inserted(StoredMessage)
    /// Already stored (the same id).
    case duplicate
    /// Another message of its author holds its (chat, author, sequence): the author signed two
    /// histories (a fork). The first one stored stays.
    case equivocation
    /// The chat has not been joined on this node.
    case unknownChat
    /// The author is not a member of the chat.
    case notMember
    /// Its sequence number or Lamport clock is above 2^63 - 1, which no honest peer reaches and SQLite cannot hold.
    case outOfRange
    /// In a keyed chat, content that is not sealed content (too short to carry an epoch and a tag).
    case malformedContent
    /// Sealed for a membership epoch this node has not learned yet: not stored, so the sender (or
    /// sync) brings it again once the change that starts the epoch has arrived.
    case unknownEpoch
    /// Accepted only because a message of the batch vouched for it, and that one was refused: stored
    /// alone it would be a run without a head, which no peer could accept from here (`Vouching`).
    case unvouched

    public var storedMessage: StoredMessage? { if case let .inserted(stored) = self { stored } else { nil } }
}
