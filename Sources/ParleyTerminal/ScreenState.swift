/// Everything the full-screen chat shows, as plain values. The shell fills it from the node;
/// `ScreenRenderer` draws it. Optional parts (reactions, presence, typing) are simply left empty
/// when the node does not provide them.
public struct ScreenState: Hashable, Sendable {
    public struct Chat: Hashable, Sendable {
        public var title: String
        public var unread: Int
        /// Unread messages that mention this user, shown as "@N" before the unread count.
        public var mentions: Int

        public init(title: String, unread: Int = 0, mentions: Int = 0) {
            self.title = title
            self.unread = unread
            self.mentions = mentions
        }
    }

    public struct Reaction: Hashable, Sendable {
        public var emoji: String
        public var count: Int
        public var mine: Bool

        public init(emoji: String, count: Int, mine: Bool = false) {
            self.emoji = emoji
            self.count = count
            self.mine = mine
        }
    }

    public struct Message: Hashable, Sendable {
        public var author: String
        public var text: String
        public var isOwn: Bool
        public var reactions: [Reaction]
        /// The short id to type in `/react`, `/reply` and `/vote`; shown before the author.
        public var id: String
        /// When it was written, already formatted ("14:02"); shown first.
        public var time: String
        /// Where an own message stands ("✓", "✓✓", "✓✓ read"), shown after the text; empty for others'.
        public var delivery: String
        /// The line quoting the message this one replies to ("↳ bob: lunch?"), shown above it.
        public var quote: String?
        /// The author's peer id (hex): with it, another's name is preceded by its `Avatar`; empty for none.
        public var authorID: String
        /// Edited, deleted, pinned, replied to.
        public var marks: Marks
        /// The "@name" runs of the text that mention members, highlighted where they show.
        public var mentions: [String]
        /// The text mentions this user: drawn in the highlight style.
        public var mentionsMe: Bool

        public init(
            author: String, text: String, isOwn: Bool = false, reactions: [Reaction] = [], id: String = "",
            time: String = "",
            delivery: String = "", quote: String? = nil, authorID: String = "", marks: Marks = Marks(),
            mentions: [String] = [], mentionsMe: Bool = false
        ) {
            self.authorID = authorID
            self.marks = marks
            self.mentions = mentions
            self.mentionsMe = mentionsMe
            self.author = author
            self.text = text
            self.isOwn = isOwn
            self.reactions = reactions
            self.id = id
            self.time = time
            self.delivery = delivery
            self.quote = quote
        }
    }

    public struct PollOption: Hashable, Sendable {
        public var label: String
        public var votes: Int
        /// Share of the ballots, 0…1.
        public var share: Double
        public var mine: Bool
        public var winner: Bool

        public init(label: String, votes: Int, share: Double, mine: Bool = false, winner: Bool = false) {
            self.label = label
            self.votes = votes
            self.share = share
            self.mine = mine
            self.winner = winner
        }
    }

    public struct PollCard: Hashable, Sendable {
        /// The short id to type in `/vote`.
        public var id: String
        public var author: String
        public var question: String
        public var isClosed: Bool
        public var options: [PollOption]
        /// One line under the bars, e.g. "2 votes · one choice".
        public var summary: String
        /// When it was posted, already formatted ("14:02"); shown before "Poll".
        public var time: String

        public init(
            id: String, author: String, question: String, isClosed: Bool = false, options: [PollOption],
            summary: String, time: String = ""
        ) {
            self.id = id
            self.time = time
            self.author = author
            self.question = question
            self.isClosed = isClosed
            self.options = options
            self.summary = summary
        }
    }

    public enum Entry: Hashable, Sendable {
        case message(Message)
        case poll(PollCard)
        /// Lines the user asked for (a poll's full results), shown where they were asked for, as written.
        case notice([String])
    }

    public enum Presence: Hashable, Sendable {
        case online
        /// `lastSeen` is already formatted for display ("14:02"), or nil when never heard from.
        case offline(lastSeen: String?)
    }

    public struct Member: Hashable, Sendable {
        public var name: String
        /// Nil when the node does not report presence.
        public var presence: Presence?
        /// This node's own user, drawn in bold.
        public var isYou: Bool

        public init(name: String, presence: Presence? = nil, isYou: Bool = false) {
            self.name = name
            self.presence = presence
            self.isYou = isYou
        }
    }

    public enum Focus: Hashable, Sendable {
        case input
        case chats
    }

    public struct Status: Hashable, Sendable {
        public var text: String
        public var isError: Bool

        public init(_ text: String, isError: Bool = false) {
            self.text = text
            self.isError = isError
        }
    }

    public var chats: [Chat]
    public var selectedChat: Int
    public var title: String
    public var entries: [Entry]
    /// Message-list lines scrolled back from the bottom; the renderer clamps it.
    public var scroll: Int
    public var members: [Member]
    public var typing: [String]
    public var input: InputLine
    public var focus: Focus
    /// Nil shows the key hint.
    public var status: Status?
    /// A warning about the open chat as a whole (members that signed two histories, `ForkNotice`),
    /// drawn above its messages for as long as it holds; nil for none.
    public var warning: String?
    /// The chat's latest pin, drawn on the top row of its messages; nil for none.
    public var pinned: PinnedBar?
    /// Set while the message list shows one message's thread (`/thread`): the root's short id, shown
    /// in the header; nil for the whole chat.
    public var thread: String?

    public init(
        chats: [Chat] = [], selectedChat: Int = 0, title: String = "", entries: [Entry] = [], scroll: Int = 0,
        members: [Member] = [], typing: [String] = [], input: InputLine = InputLine(), focus: Focus = .input,
        status: Status? = nil,
        warning: String? = nil, pinned: PinnedBar? = nil, thread: String? = nil
    ) {
        self.pinned = pinned
        self.thread = thread
        self.chats = chats
        self.selectedChat = selectedChat
        self.title = title
        self.entries = entries
        self.scroll = scroll
        self.members = members
        self.typing = typing
        self.input = input
        self.focus = focus
        self.status = status
        self.warning = warning
    }
}
