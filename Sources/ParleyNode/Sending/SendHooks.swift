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
        public let chat: ChatID
        public var tag: Tag
        public var content: [UInt8]
        public var references: [MessageReference]

        public init(chat: ChatID, tag: Tag, content: [UInt8], references: [MessageReference]) {
            self.chat = chat
            self.tag = tag
            self.content = content
            self.references = references
        }
    }

    public enum Decision: Sendable, Hashable {
        case send(Outgoing)
        case veto(reason: String)
    }

    public enum Outcome: Sendable, Hashable {
        /// Stored and handed to the transport.
        case sent(MessageID)
        /// `members` of the `of` other members have acknowledged it; reported each time it grows.
        case delivered(MessageID, to: Int, of: Int)
        /// Not sent: refused (vetoed, invalid, not a member) or not stored.
        case failed(reason: String)
    }

    public var willSend: (@Sendable (Outgoing) async -> Decision)?
    public var didSend: (@Sendable (Outcome) async -> Void)?

    public init(
        willSend: (@Sendable (Outgoing) async -> Decision)? = nil, didSend: (@Sendable (Outcome) async -> Void)? = nil
    ) {
        self.willSend = willSend
        self.didSend = didSend
    }
}
