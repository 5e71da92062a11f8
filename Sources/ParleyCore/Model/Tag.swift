/// A message's type, as in BBM: "Text", "Poll", "PollVoteUp", … Any 1–64 byte UTF-8 word; unknown tags are stored, not shown.
public struct Tag: Hashable, Sendable, Comparable, CustomStringConvertible {
    public static let maxByteCount = 64
    public let rawValue: String

    public init(_ rawValue: String) throws(CoreError) {
        try ShortWord.validate(rawValue, as: "tag", maxBytes: Self.maxByteCount)
        self.rawValue = rawValue
    }

    init(known: String) { rawValue = known }

    public static let text = Tag(known: "Text")
    public static let poll = Tag(known: "Poll")
    public static let pollVoteUp = Tag(known: "PollVoteUp")
    public static let pollVoteDown = Tag(known: "PollVoteDown")
    /// A ballot on an options poll: the full selection of option ids (docs/POLLS.md).
    public static let pollVote = Tag(known: "PollVote")
    public static let pollClose = Tag(known: "PollClose")
    public static let pollAnswer = Tag(known: "PollAnswer")
    public static let pollSuggestion = Tag(known: "PollSuggestion")

    public var description: String { rawValue }
    public static func < (lhs: Tag, rhs: Tag) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A BBM-style Chat Message Reference: the referenced message's id and the tag the reference carries.
public struct MessageReference: Hashable, Sendable {
    public let id: MessageID
    public let tag: Tag

    public init(id: MessageID, tag: Tag) {
        self.id = id
        self.tag = tag
    }
}
