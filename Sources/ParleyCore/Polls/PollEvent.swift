/// What the poll rules read of a vote or a close: enough to order it and to know whose it is.
/// `Message` is one; `PollEventRecord` is the same fields read straight from the store's columns,
/// so a yes/no tally needs no message decoded.
public protocol PollEvent: Sendable {
    var id: MessageID { get }
    var author: PeerID { get }
    var lamport: UInt64 { get }
    var sequence: UInt64 { get }
    var tag: Tag { get }
}

extension Message: PollEvent {}

public struct PollEventRecord: PollEvent, Hashable {
    public let id: MessageID
    public let author: PeerID
    public let lamport: UInt64
    public let sequence: UInt64
    public let tag: Tag

    public init(id: MessageID, author: PeerID, lamport: UInt64, sequence: UInt64, tag: Tag) {
        self.id = id
        self.author = author
        self.lamport = lamport
        self.sequence = sequence
        self.tag = tag
    }
}
