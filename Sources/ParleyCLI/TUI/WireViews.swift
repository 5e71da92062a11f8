import ParleyNode

// The JSON the full screen reads, decoded through its own structs so that fields other parts of
// Parley are adding (reactions, presence, typing) are optional here: the screen shows them as soon
// as the node sends them, and decodes the node's lines today without them.

/// A `watch` line: a message, a poll tally, reactions on a message, or who is typing;
/// or a failure (`{"ok":false,"error":…}`).
struct WatchLine: Decodable {
    let message: MessageLine?
    let poll: PollResultsView?
    /// The reactions on one message now (replacing what was shown for it).
    let reactions: ReactionsLine?
    /// Names of those typing now; empty when everyone stopped.
    let typing: [String]?
    let error: String?
}

/// The parts of a `MessageView` the screen shows.
struct MessageLine: Decodable {
    let id: String
    let author: String
    let authorName: String?
    let text: String
    let localNumber: Int64
}

/// `{"message": ID, "groups": [ReactionGroupLine]}` in a watch line.
struct ReactionsLine: Decodable {
    let message: String
    let groups: [ReactionGroupLine]
}

/// `{"type": "👍", "count": 2, "mine": true}`: one reaction and how many gave it.
struct ReactionGroupLine: Decodable {
    let type: String
    let count: Int
    let mine: Bool?
}

/// The parts of a `chatList` entry (`ChatView`) the screen shows.
struct ChatLine: Decodable {
    let id: String
    let title: String
    /// What to call the chat (a direct chat's other member), when the node says.
    let name: String?
    let members: [MemberLine]
    let messageCount: Int
    /// Shown messages from others after the read marker, when the node keeps one.
    let unread: Int?
}

/// A member from `chatList` (`id`, `name`) or from `members` (adds `online`, `lastSeenAt`, `you`).
struct MemberLine: Decodable {
    let id: String
    let name: String?
    let online: Bool?
    /// Unix milliseconds.
    let lastSeenAt: Int64?
    let you: Bool?
}

/// `status`: this node's own peer id.
struct StatusLine: Decodable {
    let peer: String
}

/// The `members` and `typing` requests, spelled as the control socket expects them
/// (`{"members":{"chat":…}}`, `{"typing":{"chat":…,"active":…}}`); nodes without them answer with an error.
enum PresenceRequest: Encodable {
    case members(chat: String)
    case typing(chat: String, active: Bool)
}
