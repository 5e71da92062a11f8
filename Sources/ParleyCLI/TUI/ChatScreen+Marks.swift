import ParleyAPI
import ParleyTerminal

extension ChatScreen {
    /// What edits, a deletion, a pin and replies made of `message`. A deletion names who deleted it
    /// only when that was not its author (the chat's creator).
    func marks(_ message: MessageView) -> ScreenState.Marks {
        ScreenState.Marks(
            edited: message.edits > 0,
            deleted: message.deletedBy.map { by in
                ScreenState.Deletion(by: by.id == message.author ? nil : name(by.id, by.name))
            },
            pinned: message.pinnedBy != nil, replies: message.replyCount)
    }
}
