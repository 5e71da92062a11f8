import ParleyNode
import ParleyCore

/// Muting a chat (issue 36): a local choice, kept by this node and never sent.
extension APIService {
    /// `chatMute`: mutes or unmutes the chat and answers with its view.
    func muteChat(_ chat: String, muted: Bool) async throws -> ChatView {
        let chatID = try resolveChat(chat)
        try await node.setMuted(chat: chatID, muted: muted)
        return try await chatView(chatID)
    }

    /// `views` with `muted` set from this node's muted chats (one read for the whole list).
    func markingMuted(_ views: [ChatView]) throws -> [ChatView] {
        let muted = Set(try node.mutedChats().map(\.hex))
        return views.map { view in
            var view = view
            view.muted = muted.contains(view.id)
            return view
        }
    }
}
