/// What members' later messages made of one message: its counted edits, the deletion that counts, the
/// pin in force and its replies. A pure function of the messages referencing it (§13d), so every node
/// holding the same ones shows the same.
public struct MessageAmendments: Sendable, Hashable {
    /// Counted edits, in the author's chain order: the last one's text is shown.
    public let edits: [Message]
    public let deletion: Message?
    /// The pin in force (its author pinned the message), or nil.
    public let pin: Message?
    /// How many replies reference the message.
    public let replyCount: Int

    public static let none = MessageAmendments(edits: [], deletion: nil, pin: nil, replyCount: 0)

    public init(edits: [Message], deletion: Message?, pin: Message?, replyCount: Int) {
        self.edits = edits
        self.deletion = deletion
        self.pin = pin
        self.replyCount = replyCount
    }

    /// - Parameters:
    ///   - related: messages that may reference `target` (any order, any tags).
    ///   - creator: the chat's creator, who may delete any message.
    public init(target: Message, related: [Message], creator: PeerID) {
        let deletion = DeleteRules.deletion(of: target, among: related, creator: creator)
        self.init(
            edits: deletion == nil ? EditRules.history(of: target, among: related) : [],
            deletion: deletion,
            pin: deletion == nil ? PinRules.pin(of: target, among: related) : nil,
            replyCount: related.count { ThreadRules.isReply($0, to: target) })
    }

    /// The text the message shows now: its latest counted edit's, else its own.
    public func currentContent(of target: Message) -> [UInt8] { edits.last?.content ?? target.content }
}
