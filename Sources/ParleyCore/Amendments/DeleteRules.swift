/// Which deletions of a message count (PROTOCOL.md §13d).
public enum DeleteRules {
    /// The tags whose messages can be deleted for everyone. Votes, closes, reactions and membership
    /// changes are what tallies and keys are computed from: they are withdrawn by their own verbs.
    public static let deletableTags: Set<Tag> = [.text, .custom, .poll, .file]

    /// Why a deletion of `target` does not count, or nil when it does: its author may delete it, and so
    /// may the chat's creator, as the chat's moderator.
    public static func refusal(of deletion: Message, target: Message, creator: PeerID) -> AmendmentRefusal? {
        guard deletion.chat == target.chat else { return .otherChat }
        guard deletableTags.contains(target.tag) else { return .notDeletable }
        guard deletion.author == target.author || deletion.author == creator else { return .notAllowed }
        return nil
    }

    /// The deletion that counts for `target`, or nil: of several, the first in history order
    /// (`HistoryPosition` of each message's own clock: between members no chain orders them), so every node names the same member as the one who deleted it.
    public static func deletion(of target: Message, among candidates: some Sequence<Message>, creator: PeerID)
        -> Message?
    {
        candidates.filter { message in
            message.tag == .delete && AmendmentTarget.of(message, tag: .delete) == target.id
                && refusal(of: message, target: target, creator: creator) == nil
        }.min { HistoryPosition($0) < HistoryPosition($1) }
    }
}
