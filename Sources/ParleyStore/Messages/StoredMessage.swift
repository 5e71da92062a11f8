public import ParleyCore

/// A message as this node holds it: the signed message plus what only this node knows about it.
public struct StoredMessage: Sendable, Hashable, Identifiable {
    public let message: Message
    /// Per-chat arrival order on this node: 1, 2, 3… Never sent; differs between peers.
    public let localNumber: Int64
    public let receivedAtMillis: Int64
    public let state: DeliveryState
    /// How many other members acknowledged it (own messages only).
    public let deliveredTo: Int
    /// How many current members other than the author sent a read receipt for it (own messages only:
    /// receipts are kept for those alone).
    public let readBy: Int
    /// How many current members other than the author there are: what `deliveredTo` and `readBy`
    /// count towards (own messages only; 0 for others').
    public let recipients: Int
    /// Its content could not be opened: this node holds no key for the epoch it was sealed in
    /// (it joined later and was not given the earlier keys). `message.content` is then empty.
    public let isSealed: Bool
    /// Its clock in history order (PROTOCOL §11): the highest Lamport clock its author claims up to it,
    /// so the author's own later message never sorts before an earlier one.
    public let historyClock: UInt64

    public var id: MessageID { message.id }
    /// Its place in the chat's history, the same on every node holding the author's messages up to it.
    public var historyPosition: HistoryPosition {
        HistoryPosition(lamport: historyClock, author: message.author, sequence: message.sequence)
    }

    public init(
        message: Message, localNumber: Int64, receivedAtMillis: Int64, state: DeliveryState, deliveredTo: Int,
        isSealed: Bool = false,
        readBy: Int = 0, recipients: Int = 0, historyClock: UInt64? = nil
    ) {
        self.historyClock = historyClock ?? message.lamport
        self.isSealed = isSealed
        self.readBy = readBy
        self.recipients = recipients
        self.message = message
        self.localNumber = localNumber
        self.receivedAtMillis = receivedAtMillis
        self.state = state
        self.deliveredTo = deliveredTo
    }
}

/// Where a message stands: own messages are sent (or pending) until delivered; others' are received.
public enum DeliveryState: String, Sendable, Codable {
    /// An own message this node did not send itself (learned back from a peer); an ack moves it on.
    case pending
    /// Stored and pushed (or about to be) to every other member, not yet acknowledged by all of them.
    case sent
    /// Acknowledged by every other member.
    case delivered
    /// Written by someone else.
    case received
}
