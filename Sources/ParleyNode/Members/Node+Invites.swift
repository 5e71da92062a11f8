public import ParleyCrypto
public import ParleyCore
public import ParleyStore

/// Invites from people who are not contacts: held until this node's user accepts or declines them
/// (at most `MessageStore.maxPendingInvites`; older ones are dropped and counted).
extension Node {
    /// The invites waiting for this user, oldest first.
    public func pendingInvites() throws -> [PendingInvite] { try store.pendingInvites() }

    /// Joins the chat of a pending invite with its history. Its creator becomes a contact named
    /// `contactName` (default "peer-" and its key's first 8 hex digits); if already a contact, a given
    /// `contactName` renames it. Everything that can refuse (the invite's key, the name) is checked
    /// before the chat is joined.
    public func acceptInvite(chat: ChatID, contactName: String? = nil) async throws -> ChatInvite {
        guard let pending = try store.pendingInvite(chat) else { throw Self.noPendingInvite(chat.shortHex) }
        let invite = pending.invite
        let key: EpochKey?
        do { key = try invite.key(for: identity) } catch {
            throw NodeError.invalid("the invite's key for you does not open: \(error)")
        }
        if let existing = try store.contact(peer: invite.creator) {
            if let contactName, contactName != existing.name {
                try await addContact(Contact(peer: invite.creator, name: contactName, address: existing.address))
            }
        } else {
            try await addContact(
                Contact(peer: invite.creator, name: contactName ?? "peer-\(invite.creator.hex.prefix(8))"))
        }
        let frames = try await join(invite, key: key, from: pending.sender)
        for peer in Set([pending.sender, invite.creator]) where peer != me { await transmit(frames, to: peer) }
        return invite
    }

    /// Whether to answer content or a sync request for a chat this node has not joined with
    /// `needInvite`. Not for an invite the user declined, nor for one still pending from someone who
    /// is not a contact: the invite pushed again would only be held again (the creator would re-push
    /// it at every sync). Once its creator is a contact, the pushed invite joins the chat.
    func asksForInvite(_ chat: ChatID) throws -> Bool {
        guard let held = try store.heldInvite(chat) else { return true }
        guard held.state == .pending, let creator = held.creator else { return false }
        return try configuration.invitePolicy == .anyone || creator == me || store.contact(peer: creator) != nil
    }

    /// The pending invite whose chat id starts with `prefix` (hex, any case), as `parley invites` lists it.
    public func resolvePendingInvite(prefix: String) throws -> PendingInvite {
        let key = prefix.lowercased()
        guard Hex.isHexPrefix(key) else {
            throw NodeError.invalid("'\(prefix)' is not an invite id (hex, as 'parley invites' lists it)")
        }
        let matches = try store.pendingInvites().filter { $0.invite.id.hex.hasPrefix(key) }
        guard matches.count == 1 else {
            throw matches.isEmpty
                ? Self.noPendingInvite(prefix)
                : NodeError.invalid("invite prefix '\(prefix)' is ambiguous: use more of its id")
        }
        return matches[0]
    }

    private static func noPendingInvite(_ id: String) -> NodeError {
        .notFound("no pending invite \(id) (see 'parley invites')")
    }

    /// Declines a pending invite: it is not joined, and the same invite pushed again stays declined.
    public func declineInvite(chat: ChatID) async throws { try await store.declineInvite(chat) }

    /// The current members of a chat this node created that have not accepted its invite yet.
    public func membersWaiting(chat: ChatID) throws -> [PeerID] {
        guard let invite = try store.chat(chat), invite.creator == me else { return [] }
        return try store.membersWaiting(chat: chat).filter { $0 != me }
    }
}
