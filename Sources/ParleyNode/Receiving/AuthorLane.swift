import ParleyCore

/// One author's messages in one chat: the unit a burst is stored in order of (`Node.inAuthorOrder`).
struct AuthorLane: Hashable, Comparable {
    let chat: ChatID
    let author: PeerID

    /// By chat, then author, byte by byte.
    static func < (lhs: AuthorLane, rhs: AuthorLane) -> Bool {
        lhs.chat != rhs.chat ? lhs.chat < rhs.chat : lhs.author < rhs.author
    }
}
