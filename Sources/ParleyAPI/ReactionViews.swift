public import ParleyNode
public import ParleyCrypto
public import ParleyCore

/// One reaction group: `firstAt`/`lastAt` are the author timestamps (Unix ms) of its earliest and latest reactions.
public struct ReactionGroupView: Codable, Sendable, Hashable {
    public let type: String
    public let count: Int
    public let score: Int
    public let firstAt: Int64
    public let lastAt: Int64
    public let mine: Bool

    public init(_ group: ReactionGroup) {
        type = group.type.rawValue
        count = group.count
        score = group.score
        firstAt = group.firstAtMillis
        lastAt = group.lastAtMillis
        mine = group.mine
    }
}

/// One counted reaction; `author` is the contact's (or own) name when known, else the hex id.
public struct ReactionItemView: Codable, Sendable, Hashable {
    public let type: String
    public let author: String
    public let authorId: String
    public let score: Int
    public let at: Int64
    public let message: String

    public init(_ reaction: Reaction, names: [PeerID: String]) {
        type = reaction.type.rawValue
        author = names[reaction.author] ?? reaction.author.hex
        authorId = reaction.author.hex
        score = reaction.score
        at = reaction.timestampMillis
        message = reaction.message.hex
    }
}

/// `reactions --json`: the groups, a page of reactions (newest first) and the cursor of the next page.
public struct ReactionsView: Codable, Sendable, Hashable {
    public let message: String
    public let groups: [ReactionGroupView]
    public let reactions: [ReactionItemView]
    public let next: String?

    public init(_ listing: ReactionListing, names: [PeerID: String]) {
        message = listing.message.hex
        groups = listing.groups.map(ReactionGroupView.init)
        reactions = listing.page.items.map { ReactionItemView($0, names: names) }
        next = listing.page.next?.description
    }
}

/// A watch event: the reacted-to message and its current groups, by count.
public struct ReactionGroupsView: Codable, Sendable, Hashable {
    public let message: String
    public let groups: [ReactionGroupView]

    public init(message: MessageID, groups: [ReactionGroup]) {
        self.message = message.hex
        self.groups = groups.map(ReactionGroupView.init)
    }
}
