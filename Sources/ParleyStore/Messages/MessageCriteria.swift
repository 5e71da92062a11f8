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
    /// How matches are ordered: by arrival on this node (local number), or by history position.
    public var order: Order
    /// With `.history`: only messages before this position (paging back through history).
    public var beforePosition: HistoryPosition?
    /// With `.history`: only messages after this position (paging forward).
    public var afterPosition: HistoryPosition?
    /// Leaves out the messages of members proven to have signed two histories, from their fork on
    /// (PROTOCOL.md §4.4): neither branch is shown as an ordinary message. History views set it.
    public var withoutForked: Bool = false
    /// Only messages that carry a reference to one of these (an empty list matches nothing): what
    /// amends a page of messages, read in one query.
    public var referencingAny: [MessageID]?
    /// Only messages that carry a reference whose tag is one of these (an empty list matches nothing):
    /// with `referencingAny`, what amends (its own tag) or replies to (the target's) a page of messages,
    /// found through the index without reading a poll's every vote.
    public var referenceTags: [Tag]?
    /// Leaves out the messages this user deleted for itself (`LocalDataKey.deletedForMe`): history views set it.
    public var withoutDeletedForMe: Bool = false
    /// The local data key marking a message this user deleted for itself (`LocalDataKey.deletedForMe`).
    public static let deletedForMeKey = "deletedForMe"

    public enum Order: Sendable, Hashable {
        /// By local number: the order this node stored them in (for following arrivals).
        case arrival
        /// By `HistoryPosition`: the same on every node (for listing a chat).
        case history
    }

    public init(
        chat: ChatID, tag: Tag? = nil, referencing: MessageID? = nil, referenceTag: Tag? = nil,
        limit: Int? = nil, afterLocalNumber: Int64? = nil, beforeLocalNumber: Int64? = nil, oldestFirst: Bool = false,
        tags: [Tag]? = nil, order: Order = .arrival, beforePosition: HistoryPosition? = nil,
        afterPosition: HistoryPosition? = nil
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
        self.order = order
        self.beforePosition = beforePosition
        self.afterPosition = afterPosition
    }
}
