import ParleyNode
public import ParleyCrypto
public import ParleyCore
public import ParleyStore

/// The answer to `read`: where the chat's read marker now is.
public struct ReadView: Codable, Sendable, Hashable {
    public let chat: String
    /// The local number read up to.
    public let marker: Int64
    /// Messages that became read now.
    public let newlyRead: Int
    /// Shown messages by others still after the marker.
    public let unread: Int
}

/// One member's receipt for an own message; times are Unix milliseconds.
public struct ReceiptView: Codable, Sendable, Hashable {
    public let member: String
    public let name: String?
    public let delivered: Bool
    /// Nil when not delivered, or delivered before times were recorded.
    public let deliveredAtMillis: Int64?
    public let read: Bool
    public let readAtMillis: Int64?

    public init(_ receipt: MessageReceipt, names: [PeerID: String]) {
        member = receipt.member.hex
        name = names[receipt.member]
        delivered = receipt.delivered
        deliveredAtMillis = receipt.deliveredAtMillis
        read = receipt.read
        readAtMillis = receipt.readAtMillis
    }
}
