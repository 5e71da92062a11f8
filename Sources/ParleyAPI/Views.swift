import ParleyNode
import Foundation
public import ParleyCrypto
public import ParleyCore
public import ParleyStore

/// JSON shapes of the control socket and of `--json` output. Ids are full lower-case hex.
public struct MessageView: Codable, Sendable, Hashable {
    public struct Reference: Codable, Sendable, Hashable {
        public let id: String
        public let tag: String
    }

    public let id: String
    public let chat: String
    public let author: String
    public let authorName: String?
    public let sequence: UInt64
    public let lamport: UInt64
    /// The clock it sorts by in history (PROTOCOL §11): `lamport`, or its author's higher clock from an
    /// earlier sequence.
    public let historyClock: UInt64
    public let timestampMillis: Int64
    public let tag: String
    public let text: String
    public let references: [Reference]
    public let localNumber: Int64
    /// "sent" or "pending" (own, not yet acknowledged by every member), "delivered" (by every member
    /// when it settled), "received" (someone else's).
    public let state: String
    /// How many other members acknowledged it (own messages only).
    public let deliveredTo: Int
    /// How many current members other than the author sent a read receipt for it (own messages only).
    public let readBy: Int
    /// The current members other than the author, whom `deliveredTo` and `readBy` count towards (own messages only).
    public let recipients: Int
    /// This node holds no key for the content (sealed in an epoch it was not given): `text` is empty.
    public let sealed: Bool
    /// `ContentKind`: "text", "link", "custom", "poll", … For custom, the JSON is in `text`.
    public let kind: String
    /// The http(s) URLs in a link message's text.
    public let links: [String]
    /// How many times its author edited it (`text` is the latest edit's); 0 when never.
    public let edits: Int
    /// When the latest edit was made (its author's clock, Unix ms), or nil.
    public let editedAtMillis: Int64?
    /// Who deleted it for everyone (its author, or the chat's creator): `kind` is then "deleted" and
    /// `text` empty. Nil while it stands.
    public let deletedBy: MemberView?
    /// Who pinned it, while it is pinned.
    public let pinnedBy: MemberView?
    /// How many replies reference it (`thread` lists them).
    public let replyCount: Int
    /// The members its text mentions, in order of first mention.
    public let mentions: [MemberView]
    /// Whether its text mentions this node's user.
    public let mentionsMe: Bool
    /// On the reply to `send` only: the chat's members this node has no way to reach (no address
    /// for them or for any other member), whom the message cannot get to until one is learned.
    public var noRoute: [MemberView]?
    /// A "File" message's file (§13e): its manifest and what this node holds of it.
    public var file: FileView?

    /// Its place in the chat's history (`HistoryPosition`), for ordering views as every node lists them.
    public var historyOrder: (UInt64, String, UInt64) { (historyClock, author, sequence) }

    /// `poll`: the poll the message changes (a vote, answer, suggestion or close), when held, so
    /// `text` can say what a ballot chose (`MessageText`).
    /// `amendments`: what members' edits, deletions, pins and replies made of it (§13d); `me`: this
    /// node's user, for `mentionsMe`; `erased`: an edit of a message deleted for everyone, whose text
    /// went with it.
    public init(
        _ stored: StoredMessage, names: [PeerID: String], poll: Poll? = nil, amendments: MessageAmendments = .none,
        me: PeerID? = nil, erased: Bool = false
    ) {
        let message = stored.message
        id = message.id.hex
        chat = message.chat.hex
        author = message.author.hex
        authorName = names[message.author]
        sequence = message.sequence
        lamport = message.lamport
        historyClock = stored.historyClock
        timestampMillis = message.timestampMillis
        tag = message.tag.rawValue
        let name = { (peer: PeerID) in names[peer] ?? String(peer.hex.prefix(8)) }
        let member = { (peer: PeerID) in MemberView(id: peer.hex, name: names[peer]) }
        let latest = amendments.edits.last
        deletedBy = amendments.deletion.map { member($0.author) }
        text =
            stored.isSealed || deletedBy != nil || erased
            ? ""
            : latest.map { Mentions.rendered($0.text, name: name) }
                ?? MessageText.render(message, poll: poll, name: name)
        edits = amendments.edits.count
        editedAtMillis = latest?.timestampMillis
        pinnedBy = amendments.pin.map { member($0.author) }
        replyCount = amendments.replyCount
        let mentioned =
            message.tag == .text && deletedBy == nil ? Mentions.mentioned(in: latest?.text ?? message.text) : []
        mentions = mentioned.map(member)
        mentionsMe = me.map(mentioned.contains) ?? false
        references = message.references.map { Reference(id: $0.id.hex, tag: $0.tag.rawValue) }
        localNumber = stored.localNumber
        state = stored.state.rawValue
        deliveredTo = stored.deliveredTo
        readBy = stored.readBy
        recipients = stored.recipients
        sealed = stored.isSealed
        let kind =
            deletedBy != nil ? .deleted : ContentKind(tag: message.tag, content: latest?.content ?? message.content)
        self.kind = kind.rawValue
        links = kind == .link ? LinkDetector.links(in: text) : []
    }
}

public struct MemberView: Codable, Sendable, Hashable {
    public let id: String
    public let name: String?
}

public struct ChatView: Codable, Sendable, Hashable {
    public let id: String
    /// "direct" or "group".
    public let kind: String
    public let title: String
    /// What to call the chat: its title, or for a direct chat without one, the other member's name.
    public let name: String
    public let creator: String
    /// The current members, sorted by name.
    public let members: [MemberView]
    public let epoch: UInt32
    /// Whether content is sealed end to end with chat keys; false only for legacy chats made before them.
    public let sealed: Bool
    public let messageCount: Int
    /// Shown messages from others after this node's read marker.
    public let unread: Int
    /// Unread messages that mention this user (among the latest `Node.mentionScanLimit` unread).
    public let unreadMentions: Int
    /// The local number (`MessageView.localNumber`) this user has read the chat up to: a front end
    /// tells the unread messages it shows by a higher number.
    public let readMarker: Int64
    public let lastMessage: MessageView?

    /// Members this node invited that have not accepted yet (only on the creator's node).
    public let waitingFor: [MemberView]
    /// When the chat last changed: its latest shown message's time, or its creation (ms). Each is the
    /// author's claimed time but never later than this node's arrival (or join) time, so a sender's
    /// clock set ahead cannot pin a chat at the top of the list.
    public let lastActivityMillis: Int64
    /// Members this node has no way to reach: no address is known for them, nor for any other
    /// member who could carry the chat to them (`Node.membersWithoutRoute`).
    public let noRoute: [MemberView]
    /// Members proven to have signed two histories here (PROTOCOL.md §4.4), each with the sequence
    /// from which their messages count for nothing and are not shown.
    public let forked: [ForkedMemberView]
    /// Whether this node's user muted the chat (`chatMute`): local to this node, never sent. Front
    /// ends leave a muted chat out of notifications and of unread totals.
    public var muted = false

    public init(
        _ summary: ChatSummary, names: [PeerID: String], me: PeerID, unread: Int, readMarker: Int64,
        waitingFor: [PeerID],
        noRoute: [PeerID], forks: ChatForks = .none, unreadMentions: Int = 0,
        lastMessageAmendments: MessageAmendments = .none
    ) {
        self.unread = unread
        self.unreadMentions = unreadMentions
        self.readMarker = readMarker
        forked = forks.authors.map {
            ForkedMemberView(id: $0.hex, name: names[$0], fromSequence: forks.forkedFrom[$0] ?? 0)
        }
        self.noRoute = noRoute.map { MemberView(id: $0.hex, name: names[$0]) }.sorted(by: MemberView.byName)
        self.waitingFor = waitingFor.map { MemberView(id: $0.hex, name: names[$0]) }.sorted(by: MemberView.byName)
        id = summary.invite.id.hex
        kind = summary.kind.rawValue
        title = summary.invite.title
        creator = summary.invite.creator.hex
        members = summary.members.map { MemberView(id: $0.hex, name: names[$0]) }.sorted(by: MemberView.byName)
        epoch = summary.epoch
        sealed = summary.invite.isKeyed
        messageCount = summary.messageCount
        lastMessage = summary.lastMessage.map {
            MessageView($0, names: names, amendments: lastMessageAmendments, me: me)
        }
        let lastMessageMillis = summary.lastMessage.map { min($0.message.timestampMillis, $0.receivedAtMillis) } ?? .min
        let createdMillis = min(summary.invite.createdAtMillis, summary.joinedAtMillis ?? .max)
        lastActivityMillis = max(lastMessageMillis, createdMillis)
        let other = summary.members.first { $0 != me }
        name = !title.isEmpty ? title : other.map { names[$0] ?? String($0.hex.prefix(8)) } ?? "(just you)"
    }
}

/// A member that signed two histories in a chat: from `fromSequence` on, its messages there count for nothing.
public struct ForkedMemberView: Codable, Sendable, Hashable {
    public let id: String
    public let name: String?
    public let fromSequence: UInt64
}

extension MemberView {
    /// Named members first, by name (case-insensitive), then the others by id.
    static func byName(_ lhs: MemberView, _ rhs: MemberView) -> Bool {
        switch (lhs.name, rhs.name) {
        case let (left?, right?): left.localizedCaseInsensitiveCompare(right) == .orderedAscending
        case (.some, nil): true
        case (nil, .some): false
        case (nil, nil): lhs.id < rhs.id
        }
    }
}

public struct ContactView: Codable, Sendable, Hashable {
    public let id: String
    public let name: String
    public let address: String?
}

public struct LocalDataView: Codable, Sendable, Hashable {
    public let message: String
    public let key: String
    public let value: String?

    /// The keys Parley keeps for itself, with what each is for: they can be read, not set or deleted.
    public static var parleysOwnKeys: [String: String] { LocalDataKey.reserved }
    /// What a key of Parley's own is for; nil for a key of the user's.
    public static func parleysPurpose(of key: String) -> String? { LocalDataKey.purpose(of: key) }
}
