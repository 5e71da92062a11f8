/// Threads (PROTOCOL.md §13d): a reply is a shown message (Text, Custom or Poll) of the same chat that
/// references its target with the target's own tag, as replies always have; a thread is a message
/// and its replies, in history order.
public enum ThreadRules {
    public static let replyTags: Set<Tag> = [.text, .custom, .poll, .file]

    public static func isReply(_ message: Message, to target: Message) -> Bool {
        message.chat == target.chat && replyTags.contains(message.tag) && replyTags.contains(target.tag)
            && message.references.contains(MessageReference(id: target.id, tag: target.tag))
    }
}
