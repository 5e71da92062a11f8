/// The message an edit, deletion or pin applies to: the one it references with its own tag. It must
/// carry exactly one such reference; a message naming two (or none) changes nothing (§13d).
public enum AmendmentTarget {
    public static func of(_ message: Message, tag: Tag) -> MessageID? {
        let targets = message.references.filter { $0.tag == tag }
        return targets.count == 1 ? targets[0].id : nil
    }
}

/// Why an edit, deletion or pin changes nothing: each is stored like any member's message (so stores
/// do not depend on arrival order) and counted under its own reason when its target is held.
public enum AmendmentRefusal: String, Sendable, Hashable {
    case otherChat
    /// An edit by someone other than the message's author.
    case notAuthor
    /// A deletion by someone who is neither the author nor the chat's creator.
    case notAllowed
    case notEditable
    case notDeletable
    case notPinnable
    case malformed
}
