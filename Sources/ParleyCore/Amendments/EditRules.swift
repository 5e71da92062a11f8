/// Which edits of a message count (PROTOCOL.md §13d): a pure function of the messages, so every node
/// holding the same ones shows the same text, whatever arrived first and whoever sent what.
public enum EditRules {
    /// The tags whose messages can be edited. A poll is never edited: its votes were cast on what it
    /// says, so it cannot change once one exists, and before one it is as easily deleted and asked again.
    public static let editableTags: Set<Tag> = [.text]

    /// Why an edit of `target` does not count, or nil when it does.
    public static func refusal(of edit: Message, target: Message) -> AmendmentRefusal? {
        guard edit.chat == target.chat else { return .otherChat }
        guard edit.author == target.author else { return .notAuthor }
        guard editableTags.contains(target.tag) else { return .notEditable }
        return nil
    }

    /// The counted edits of `target` among `candidates` (any order, duplicates allowed, any tags), in its
    /// author's chain order: the last one is the text shown. An author's chain is the one order no member
    /// can reorder (each sequence is signed once); a claimed clock would let an old edit win.
    public static func history(of target: Message, among candidates: some Sequence<Message>) -> [Message] {
        var seen = Set<MessageID>()
        return candidates.filter { message in
            message.tag == .edit && AmendmentTarget.of(message, tag: .edit) == target.id
                && refusal(of: message, target: target) == nil && seen.insert(message.id).inserted
        }.sorted { ChainPosition(sequence: $0.sequence, id: $0.id) < ChainPosition(sequence: $1.sequence, id: $1.id) }
    }
}
