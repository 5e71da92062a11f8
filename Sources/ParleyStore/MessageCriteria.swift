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
    /// Only messages that arrived before this local number: for paging back through history.
    public var beforeLocalNumber: Int64?
    /// With a limit, the oldest `limit` matches instead of the latest: for paging forward.
    public var oldestFirst: Bool
    /// Only messages whose tag is one of these (an empty list matches nothing).
    public var tags: [Tag]?

    public init(
        chat: ChatID, tag: Tag? = nil, referencing: MessageID? = nil, referenceTag: Tag? = nil,
        limit: Int? = nil, afterLocalNumber: Int64? = nil, beforeLocalNumber: Int64? = nil, oldestFirst: Bool = false,
        tags: [Tag]? = nil
    ) {
        self.chat = chat
        self.tag = tag
        self.referencing = referencing
        self.referenceTag = referenceTag
        self.limit = limit
        self.afterLocalNumber = afterLocalNumber
        self.beforeLocalNumber = beforeLocalNumber
        self.oldestFirst = oldestFirst
        self.tags = tags
    }
}
