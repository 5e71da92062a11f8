/// Where a message stands in its chat's history: by history clock, then author id (as bytes), then the
/// author's sequence. Every node holding the same messages lists them in this same order, whatever
/// order they arrived in (a catch-up does not put old messages after newer ones).
///
/// The history clock (PROTOCOL §11) is the highest Lamport clock the author claims at this sequence or
/// a lower one: a member cannot put its own later message before its earlier one by claiming less.
public struct HistoryPosition: Hashable, Comparable, Sendable {
    /// The history clock.
    public let lamport: UInt64
    public let author: PeerID
    public let sequence: UInt64

    public init(lamport: UInt64, author: PeerID, sequence: UInt64) {
        self.lamport = lamport
        self.author = author
        self.sequence = sequence
    }

    /// The position of a message whose clock is its history clock (not lower than its author's earlier ones).
    public init(_ message: Message) {
        self.init(lamport: message.lamport, author: message.author, sequence: message.sequence)
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.lamport, lhs.author, lhs.sequence) < (rhs.lamport, rhs.author, rhs.sequence)
    }
}
