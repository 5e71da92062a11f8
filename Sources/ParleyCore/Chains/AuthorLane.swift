public import ParleyCrypto

/// One author's messages in one chat: the run a hash chain links (PROTOCOL §4.1), which heads are
/// planned over (`HeadCheckPlan`), a burst is stored in order of (`Node.inAuthorOrder`) and a sync
/// head counts (`author_heads`).
public struct AuthorLane: Hashable, Comparable, Sendable {
    public let chat: ChatID
    public let author: PeerID

    public init(chat: ChatID, author: PeerID) {
        self.chat = chat
        self.author = author
    }

    /// The lane of `message`.
    public init(of message: Message) {
        self.init(chat: message.chat, author: message.author)
    }

    /// By chat, then author, byte by byte.
    public static func < (lhs: AuthorLane, rhs: AuthorLane) -> Bool {
        lhs.chat != rhs.chat ? lhs.chat < rhs.chat : lhs.author < rhs.author
    }
}
