public import ParleyCore

/// A BBM-style criteria query over one chat. Every field left nil matches everything.
public struct MessageCriteria: Sendable, Hashable {
    public var chat: ChatID
    /// The message's own tag ("Text", "PollVoteUp", …).
    public var tag: Tag?
    /// Only messages that carry a reference to this message.
    public var referencing: MessageID?
    /// Only messages that carry a reference with this tag.
    public var referenceTag: Tag?
    /// The last `limit` matches (still in ascending order).
    public var limit: Int?
    /// Only messages that arrived after this local number: for paging and catching up.
    public var afterLocalNumber: Int64?

    public init(
        chat: ChatID, tag: Tag? = nil, referencing: MessageID? = nil, referenceTag: Tag? = nil,
        limit: Int? = nil, afterLocalNumber: Int64? = nil
    ) {
        self.chat = chat
        self.tag = tag
        self.referencing = referencing
        self.referenceTag = referenceTag
        self.limit = limit
        self.afterLocalNumber = afterLocalNumber
    }
}
