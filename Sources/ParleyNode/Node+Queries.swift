public import ParleyCore
public import ParleyStore

/// What front ends read: the node's store stays private to the node, and these are the queries a
/// view needs, each a read of what is stored now.
extension Node {
    /// Every chat this node holds, with its current members, epoch, size and latest message.
    public func chats() throws -> [ChatSummary] { try store.chats() }

    /// The chat `id`, or nil if this node does not hold it.
    public func chat(_ id: ChatID) throws -> ChatSummary? { try store.chats().first { $0.invite.id == id } }

    /// The chat whose id starts with `prefix` (hex); throws if none or several do.
    public func resolveChat(prefix: String) throws -> ChatID { try store.resolveChat(prefix: prefix) }

    /// Messages from others after this node's read marker, of the kinds a chat shows.
    public func unreadCount(chat: ChatID) throws -> Int { try store.unreadCount(chat: chat, me: me) }

    /// The local number up to which this user has read the chat.
    public func readMarker(chat: ChatID) throws -> Int64 { try store.readMarker(chat: chat) }

    /// The chat's highest local number (0 when it holds no message).
    public func latestLocalNumber(chat: ChatID) throws -> Int64 { try store.latestLocalNumber(chat: chat) }

    /// A criteria query: messages of a chat by tag, reference and local-number window.
    public func messages(matching criteria: MessageCriteria) throws -> [StoredMessage] {
        try store.messages(matching: criteria)
    }

    /// The chat's members proven to have signed two histories, and from which sequence (PROTOCOL.md §4.4).
    public func forks(chat: ChatID) throws -> ChatForks { try store.forks(chat: chat) }

    /// One message, with its content opened when this node holds the key.
    public func message(_ id: MessageID) throws -> StoredMessage? { try store.message(id) }

    /// The message whose id starts with `prefix` (hex), within `chat` when given.
    public func resolveMessage(prefix: String, in chat: ChatID?) throws -> MessageID {
        try store.resolveMessage(prefix: prefix, in: chat)
    }

    /// Delivery and read receipts of one of this node's own messages; nil for someone else's.
    public func receipts(message: MessageID) throws -> [MessageReceipt]? { try store.receipts(message: message) }

    /// The ids of each batch of messages stored in `chat` from now on: a live query's wake-up.
    public func arrivals(chat: ChatID) -> AsyncStream<StoredBatch> { store.arrivals(chat: chat) }

    /// This user's contacts, sorted by name.
    public func contacts() throws -> [Contact] { try store.contacts() }
}
