public import ParleyCore

/// One line of a chat list.
public struct ChatSummary: Sendable, Hashable {
    public let invite: ChatInvite
    public let messageCount: Int
    /// The latest arrival, by local number.
    public let lastMessage: StoredMessage?

    public init(invite: ChatInvite, messageCount: Int, lastMessage: StoredMessage?) {
        self.invite = invite
        self.messageCount = messageCount
        self.lastMessage = lastMessage
    }
}
