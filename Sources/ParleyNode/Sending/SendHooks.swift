public import ParleyCore

/// Hooks on the send path, installed through `NodeConfiguration.sendHooks`. Absent hooks cost nothing.
///
/// `willSend` sees each outgoing message before it is numbered or stored: it may send it as is,
/// rewrite its tag, content or references, or veto it (the send then throws `NodeError.vetoed`, and
/// nothing is stored or numbered). `didSend` is told what became of each message: sent, each time
/// more members acknowledge it, or failed. It is awaited on the send and receive paths, so it
/// should return quickly.
public struct SendHooks: Sendable {
    /// What is about to be sent; the chat cannot be changed.
    public struct Outgoing: Sendable, Hashable {
        /// The chat it goes to.
        public let chat: ChatID
        /// The message's tag.
        public var tag: Tag
        /// The content, in plaintext.
        public var content: [UInt8]
        /// The earlier messages it refers to.
        public var references: [MessageReference]

        /// An outgoing message as the send path describes it.
        public init(chat: ChatID, tag: Tag, content: [UInt8], references: [MessageReference]) {
            self.chat = chat
            self.tag = tag
            self.content = content
            self.references = references
        }
    }

    /// What `willSend` decides for one message.
    public enum Decision: Sendable, Hashable {
        /// Send this message: the original, or a rewritten one for the same chat.
        case send(Outgoing)
        /// Refuse it: the send throws `NodeError.vetoed` and nothing is stored.
        case veto(reason: String)
    }

    /// What became of a message, as `didSend` is told.
    public enum Outcome: Sendable, Hashable {
        /// Stored; told just before its push, which follows the store in batch order and may come
        /// after `send` returned.
        case sent(MessageID)
        /// `members` of the `of` other members have acknowledged it; reported each time it grows.
        case delivered(MessageID, to: Int, of: Int)
        /// Not sent: refused (vetoed, invalid, not a member) or not stored.
        case failed(reason: String)
    }

    /// Sees each outgoing message first and may rewrite or veto it.
    public var willSend: (@Sendable (Outgoing) async -> Decision)?
    /// Told when a message is sent, acknowledged by more members, or fails. It runs on the send path:
    /// it should return quickly (later batches' pushes wait for it) and must not send a message
    /// itself, which would wait for it in turn.
    public var didSend: (@Sendable (Outcome) async -> Void)?

    /// Hooks to install; either may be omitted.
    public init(
        willSend: (@Sendable (Outgoing) async -> Decision)? = nil, didSend: (@Sendable (Outcome) async -> Void)? = nil
    ) {
        self.willSend = willSend
        self.didSend = didSend
    }
}
