public import ParleyCore
import ParleyStore

/// Muting: a chat the user muted is kept quiet by front ends (no notifications, not in the unread
/// total). A local choice, stored on this node only: nothing about it is ever sent.
extension Node {
    /// Mutes or unmutes `chat` on this node.
    public func setMuted(chat: ChatID, muted: Bool) async throws {
        guard try await store.setMuted(chat: chat, muted: muted, atMillis: clock.wallMillis) else {
            throw NodeError.notFound("no chat \(chat.shortHex)")
        }
    }

    /// The chats this node's user muted.
    public func mutedChats() throws -> Set<ChatID> { try store.mutedChats() }
}
