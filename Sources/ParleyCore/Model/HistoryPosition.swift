/// Where a message stands in its chat's history: by Lamport clock, then author id (as bytes), then the
/// author's sequence. Every node holding the same messages lists them in this same order, whatever
/// order they arrived in (a catch-up does not put old messages after newer ones).
public struct HistoryPosition: Hashable, Comparable, Sendable {
    public let lamport: UInt64
    public let author: PeerID
    public let sequence: UInt64

    public init(lamport: UInt64, author: PeerID, sequence: UInt64) {
        self.lamport = lamport
        self.author = author
        self.sequence = sequence
    }

    public init(_ message: Message) { self.init(lamport: message.lamport, author: message.author, sequence: message.sequence) }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.lamport, lhs.author, lhs.sequence) < (rhs.lamport, rhs.author, rhs.sequence)
    }
}
