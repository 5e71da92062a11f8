public import ParleyCore

/// One line of a chat list.
public struct ChatSummary: Sendable, Hashable {
    public let invite: ChatInvite
    /// The current members (the invite's, as changed by "Membership" messages since), sorted.
    public let members: [PeerID]
    /// The current membership epoch: 0 until the first change.
    public let epoch: UInt32
    public let messageCount: Int
    /// The latest arrival, by local number.
    public let lastMessage: StoredMessage?
    /// When this node joined the chat (its own clock); nil when not known.
    public let joinedAtMillis: Int64?

    public init(
        invite: ChatInvite, members: [PeerID], epoch: UInt32, messageCount: Int, lastMessage: StoredMessage?,
        joinedAtMillis: Int64? = nil
    ) {
        self.invite = invite
        self.members = members
        self.epoch = epoch
        self.messageCount = messageCount
        self.lastMessage = lastMessage
        self.joinedAtMillis = joinedAtMillis
    }

    public var kind: ChatKind { invite.kind }
}
