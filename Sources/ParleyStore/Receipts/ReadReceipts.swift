public import ParleyCore

/// What reading a chat did: how many messages became read, and the receipts to send for them.
public struct ReadProgress: Hashable, Sendable {
    public let newlyRead: Int
    public let receipts: [PendingReadReceipt]
}

/// A read receipt to send: "I read `message` (in `chat`)", to its author.
public struct PendingReadReceipt: Hashable, Sendable {
    public let message: MessageID
    public let chat: ChatID
    public let author: PeerID
}

/// One member's receipt for a message: delivered (acknowledged) and read, each with its time when known.
public struct MessageReceipt: Hashable, Sendable {
    public let member: PeerID
    public let delivered: Bool
    /// Nil when not delivered, or delivered before times were recorded.
    public let deliveredAtMillis: Int64?
    /// Nil until the member reads it.
    public let readAtMillis: Int64?

    public var read: Bool { readAtMillis != nil }

    public init(member: PeerID, delivered: Bool, deliveredAtMillis: Int64?, readAtMillis: Int64?) {
        self.member = member
        self.delivered = delivered
        self.deliveredAtMillis = deliveredAtMillis
        self.readAtMillis = readAtMillis
    }
}
