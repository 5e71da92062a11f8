public import ParleyCrypto

/// The members of one chat proven to have signed two histories (`ForkProof`), each with the
/// lowest forked sequence held: the one rule every node applies once it holds a proof
/// (PROTOCOL.md §4.4, POLLS.md). From that sequence on, the author's messages in the chat count for
/// nothing (no vote, close, ballot key or reaction; not shown in history), whichever branch a node
/// stored first. Below it, both branches agree (they are one hash chain), so every node counts
/// the same messages. A pure function of the proofs held: nodes holding the same proofs agree.
public struct ChatForks: Sendable, Hashable {
    /// Author → the lowest sequence a held proof shows forked.
    public let forkedFrom: [PeerID: UInt64]

    public init(forkedFrom: [PeerID: UInt64] = [:]) {
        self.forkedFrom = forkedFrom
    }

    public static let none = ChatForks()

    public var isEmpty: Bool { forkedFrom.isEmpty }

    /// Whether the author's message at `sequence` counts: it comes before any fork of its author.
    public func counts(author: PeerID, sequence: UInt64) -> Bool {
        forkedFrom[author].map { sequence < $0 } ?? true
    }

    public func counts(_ message: Message) -> Bool { counts(author: message.author, sequence: message.sequence) }

    /// The authors proven to have forked, in id order (for views).
    public var authors: [PeerID] { forkedFrom.keys.sorted() }
}
