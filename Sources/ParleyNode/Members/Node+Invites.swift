public import ParleyCore
public import ParleyStore

/// Invites from people who are not contacts: held until this node's user accepts or declines them
/// (at most `MessageStore.maxPendingInvites`; older ones are dropped and counted).
extension Node {
    /// The invites waiting for this user, oldest first.
    public func pendingInvites() throws -> [PendingInvite] { try store.pendingInvites() }

    /// Joins the chat of a pending invite with its history, and adds its creator as a contact named
    /// `contactName` (unless already one).
    public func acceptInvite(chat: ChatID, contactName: String) async throws -> ChatInvite {
        guard let pending = try store.pendingInvites().first(where: { $0.invite.id == chat }) else {
            throw NodeError.notFound("no pending invite \(chat.shortHex) (see 'parley invites')")
        }
        let invite = pending.invite
        if try store.contact(peer: invite.creator) == nil {
            try await addContact(Contact(peer: invite.creator, name: contactName))
        }
        let key: EpochKey?
        do { key = try invite.key(for: identity) } catch { throw NodeError.invalid("the invite's key for you does not open: \(error)") }
        let frames = try await join(invite, key: key, from: pending.sender)
        for peer in Set([pending.sender, invite.creator]) where peer != me { await transmit(frames, to: peer) }
        return invite
    }

    /// Declines a pending invite: it is not joined, and the same invite pushed again stays declined.
    public func declineInvite(chat: ChatID) async throws { try await store.declineInvite(chat) }

    /// The current members of a chat this node created that have not accepted its invite yet.
    public func membersWaiting(chat: ChatID) throws -> [PeerID] {
        guard let invite = try store.chat(chat), invite.creator == me else { return [] }
        return try store.membersWaiting(chat: chat).filter { $0 != me }
    }
}
