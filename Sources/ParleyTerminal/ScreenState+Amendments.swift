/// What edits, deletions, pins and replies made of a message, and the chat's pinned bar (PROTOCOL.md §13d).
extension ScreenState {
    public struct Marks: Hashable, Sendable {
        /// Shows "(edited)" after the text.
        public var edited: Bool
        /// Nil while the message stands; once deleted for everyone its text is no longer shown, only
        /// "message deleted", with `by` when someone other than its author deleted it (the chat's creator).
        public var deleted: Deletion?
        /// Shows "📌" after the text while the message is pinned.
        public var pinned: Bool
        /// Shown under the message as "↳ 2 replies" (`/thread` lists them).
        public var replies: Int

        public init(edited: Bool = false, deleted: Deletion? = nil, pinned: Bool = false, replies: Int = 0) {
            self.edited = edited
            self.deleted = deleted
            self.pinned = pinned
            self.replies = replies
        }
    }

    public struct Deletion: Hashable, Sendable {
        /// Who deleted it, when not its author; nil when its author did.
        public var by: String?

        public init(by: String? = nil) { self.by = by }
    }

    /// The line at the top of the chat: its latest pin, and how many more there are.
    public struct PinnedBar: Hashable, Sendable {
        /// The pinned message's text (or a poll's question), as it shows in the chat.
        public var text: String
        public var pinnedBy: String
        /// Pins besides this one (`/pins` lists all).
        public var more: Int

        public init(text: String, pinnedBy: String, more: Int = 0) {
            self.text = text
            self.pinnedBy = pinnedBy
            self.more = more
        }
    }
}
