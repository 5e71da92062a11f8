import ParleyNode
/// One request on the control socket: a JSON object on one line, e.g.
/// `{"send":{"chat":"3f2a","text":"hi","refs":[]}}`. See docs/PROTOCOL.md §Control socket.
///
/// Peers, chats and messages are given as the user typed them (names, titles, hex prefixes);
/// the node resolves them.
public enum APIRequest: Codable, Sendable, Hashable {
    case status
    case contactsAdd(peer: String, name: String, address: String?)
    case contactsList
    /// `kind` is "group" (the default) or "direct".
    case chatCreate(title: String, members: [String], kind: String? = nil)
    case chatList
    /// `refs` (`MESSAGE[:TAG]` entries) may be omitted, like `tag`: no references.
    case send(chat: String, text: String, tag: String?, refs: [String]? = nil)
    /// In history order (`HistoryPosition`), the same on every node. `shown: true` keeps only the kinds a
    /// chat shows (`ContentKind.isShown`). `before` (a message id prefix) pages back from that message
    /// (the latest `limit` before it), `after` forward (the first `limit` after it).
    case messages(
        chat: String, tag: String?, ref: String?, refTag: String?, limit: Int?, before: String? = nil,
        after: String? = nil, shown: Bool? = nil)
    /// Without `options`, a yes/no poll. `closesAtMillis` is Unix time in milliseconds. `secret`: a
    /// secret ballot (docs/BALLOTS.md), which needs `closesAtMillis` and takes no answers or suggestions.
    case pollCreate(
        chat: String, question: String, options: [String]? = nil, description: String? = nil, maxVotes: Int? = nil,
        unique: Bool? = nil, anonymous: Bool? = nil, allowAnswers: Bool? = nil, allowSuggestions: Bool? = nil,
        closesAtMillis: Int64? = nil,
        secret: Bool? = nil)
    /// A vote on a poll of any kind: `["up"]` or `["down"]` on a yes/no poll; option ids or texts on an
    /// options poll. On a secret poll the same choices make this user's ballot, signed for the
    /// electorate and relayed through two other members: final, it cannot be changed, and after the
    /// close the node keeps only that this user voted, unless `keepChoice` asks it to keep the choice
    /// (refused on any other poll).
    case pollVote(chat: String, poll: String, choices: [String], keepChoice: Bool? = nil)
    case pollUnvote(chat: String, poll: String, option: String?)
    case pollAnswer(chat: String, poll: String, text: String)
    case pollSuggest(chat: String, poll: String, text: String)
    case pollClose(chat: String, poll: String)
    case pollResults(chat: String, poll: String)
    case pollVotes(chat: String, poll: String, option: String?, answers: Bool?, limit: Int?, before: String?)
    case localGet(message: String, key: String)
    /// Refused for the node's own keys (`LocalDataKey.reserved`), as `localDelete` is.
    case localSet(message: String, key: String, value: String)
    /// Every local value on a message, sorted by key (a list of `LocalDataView`).
    case localList(message: String)
    /// Removes a local value; the result's `value` is the value removed, null when the key had none.
    case localDelete(message: String, key: String)
    /// Streams `WatchEvent` lines for a chat until the client hangs up.
    case watch(chat: String)
    /// The creator of a group adds or removes members (a signed "Membership" message; re-keys the chat).
    case chatAddMembers(chat: String, members: [String])
    case chatRemoveMembers(chat: String, members: [String])
    /// Adds a reaction (emoji or word) to a message; `score` defaults to 1.
    case react(chat: String, message: String, type: String, score: Int? = nil, unique: Bool? = nil)
    case unreact(chat: String, message: String, type: String)
    /// A message's reaction groups and a page of its reactions, newest first. `sort`: count, score, first or last.
    case reactions(
        chat: String, message: String, type: String? = nil, author: String? = nil, sort: String? = nil,
        limit: Int? = nil, before: String? = nil)
    /// Advances the chat's read marker and sends read receipts: up to message number `upTo` (#N), or
    /// up to `message` (an id prefix), else to the latest message.
    case read(chat: String, upTo: Int64? = nil, message: String? = nil)
    /// Delivered and read, per other member, for one of this node's own messages.
    case receipts(chat: String, message: String)
    /// The chat's current members, with who is online.
    case members(chat: String)
    /// Tells the chat's connected members this user is typing (`active`) or stopped.
    case typing(chat: String, active: Bool)
    /// A live criteria query (a stream, like `watch`): every message of the chat stored from now on
    /// whose tag is one of `tags` (all tags when nil) and, with `ref` (`MESSAGE[:TAG]`), that references
    /// it; each as `{"message":…}`. Marks nothing read.
    case watchMessages(chat: String, tags: [String]? = nil, ref: String? = nil)
    /// Invites from people who are not contacts, waiting for this user.
    case invites
    /// Joins a pending invite's chat (an id prefix); its creator becomes a contact named `name`.
    case inviteAccept(invite: String, name: String? = nil)
    /// Declines a pending invite; the same invite pushed again stays declined.
    case inviteDecline(invite: String)
    /// A one-time login link for the web app (`parley web`); the node's owner only (`ownerOnlyNames`).
    /// A new text for a Text message of this user's (PROTOCOL.md §13d); answered with the Edit message.
    case edit(chat: String, message: String, text: String)
    /// Deletes a message for everyone: this user's own, or any as the chat's creator.
    case delete(chat: String, message: String)
    /// Hides a message from this user's own views on this node; nothing is sent.
    case deleteForMe(chat: String, message: String)
    /// Pins a message for the chat, or unpins it with `pinned: false`.
    case pin(chat: String, message: String, pinned: Bool? = nil)
    /// The chat's pinned messages, the latest pin first.
    case pins(chat: String)
    /// A message and its replies.
    case thread(chat: String, message: String)
    /// A message's versions: the original text, then each counted edit.
    case edits(chat: String, message: String)
    case webLogin
    /// Ends every web session and replaces the web token (`parley web --revoke`); the owner only.
    case webRevoke
    /// Full-text search over this node's own messages (texts, custom content, polls' questions and options),
    /// newest first: every word of `text` as a word prefix; the text is words, never query syntax. An edited
    /// message is found by its latest text, as itself. `chat` (id prefix or title), `from` (a member's name
    /// or id) and `tag` filter; `limit` (default 25, at most 200) and `before` (a hit's `matched` id,
    /// the previous page's `next`) page. Nothing is sent; the text is never logged.
    case search(
        text: String, chat: String? = nil, from: String? = nil, tag: String? = nil, limit: Int? = nil,
        before: String? = nil)
    /// Mutes (`muted: true`) or unmutes a chat on this node: front ends leave a muted chat out of
    /// notifications and unread totals. Local only, never sent; answered with the chat's view.
    case chatMute(chat: String, muted: Bool)
    /// Sends the file at `path` (on the node's machine) to the chat as a "File" message (§13e): pictures
    /// lose their EXIF and GPS metadata unless `keepMetadata`; `name` replaces the file's own name.
    /// Control socket only: the web app uploads instead (`POST /api/upload`).
    case fileSend(chat: String, path: String, name: String? = nil, caption: String? = nil, keepMetadata: Bool? = nil)
    /// The chat's files and pictures, oldest first, with what this node holds of each.
    case files(chat: String)
    /// One file: its manifest and this node's progress in fetching it.
    case file(chat: String, file: String)
    /// Starts fetching a file from the members holding it (at once if held or already fetching); poll
    /// `file` for progress.
    case fileFetch(chat: String, file: String)
    /// Copies a held file into the folder `to` (on the node's machine) under its name, made unique.
    /// Control socket only: the web app downloads instead (`GET /api/files/CHAT/FILE`).
    case fileSave(chat: String, file: String, to: String)
}

/// One response line: `{"ok":true,"result":…}` or `{"ok":false,"error":"…","kind":"notFound"}`.
public struct APIResponse<Result: Codable & Sendable>: Codable, Sendable {
    public let ok: Bool
    public let result: Result?
    public let error: String?
    /// What kind of failure `error` is (`APIFailure.Kind`).
    public let kind: APIFailure.Kind?

    public static func success(_ result: Result) -> Self { Self(ok: true, result: result, error: nil, kind: nil) }
    public static func failure(_ failure: APIFailure) -> Self {
        Self(ok: false, result: nil, error: failure.message, kind: failure.kind)
    }
}

/// A line of a `watch` stream.
public struct WatchEvent: Codable, Sendable {
    public let message: MessageView?
    public let poll: PollResultsView?
    /// A message's current reaction groups, after a reaction to it was stored.
    public let reactions: ReactionGroupsView?
    /// Names of those typing now, sent when the set changes; empty when everyone stopped.
    public let typing: [String]?

    public init(
        message: MessageView? = nil, poll: PollResultsView? = nil, reactions: ReactionGroupsView? = nil,
        typing: [String]? = nil
    ) {
        self.message = message
        self.poll = poll
        self.reactions = reactions
        self.typing = typing
    }
}
