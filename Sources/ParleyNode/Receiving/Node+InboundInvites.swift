import Logging
import ParleyCore
import ParleyCrypto
import ParleyStore

/// Invites arriving: pushed by a chat's creator or a member (joined, held or refused), and asked for by
/// a member whose message reached a node that lacks its chat (`needInvite`).
extension Node {
    /// An invite a peer pushed: refused (counted), held for the user when it comes from a stranger, or
    /// joined; returns the frames that answer it (its ack and the sync requests of a joined chat).
    func receiveInvite(_ bytes: [UInt8], from peer: PeerID) async throws -> [Frame] {
        let invite: ChatInvite
        do { invite = try ChatInvite(decoding: bytes) } catch {
            await engine.reject(
                error.isUnsupportedVersion ? .unsupportedVersion : error.isBadSignature ? .badSignature : .malformed)
            return []
        }
        // A member added later is not in the invite: its creator sends it beside the change that adds
        // the member, in either order (a change for a chat not joined yet comes again by retransmit).
        guard invite.isMember(me) && invite.isMember(peer) || peer == invite.creator else {
            await engine.reject(.notMember)
            return []
        }
        // Content in a legacy chat travels unsealed: this node joins no new one (chats it already holds keep working).
        guard try invite.isKeyed || store.chat(invite.id) != nil else {
            await engine.reject(.unsealedChat)
            return []
        }
        let trusted =
            try configuration.invitePolicy == .anyone || invite.creator == me
            || store.contact(peer: invite.creator) != nil
        // From a stranger, and already held (pending or declined): nothing more to do, and
        // nothing is counted again or written (one read).
        if !trusted, try store.heldInvite(invite.id) != nil { return [] }
        let key: EpochKey?
        do { key = try invite.key(for: identity) } catch {
            await engine.reject(.malformed)
            return []
        }
        // From a stranger: held for the user (`parley invites`), not acknowledged, so the creator's
        // view says it waits. Adding the creator as a contact also lets the chat's next message
        // (through `needInvite`, see `asksForInvite`) bring the invite back and join it.
        guard trusted else {
            if case let .held(dropped) = try await store.holdInvite(
                invite, from: peer, receivedAtMillis: clock.wallMillis)
            {
                await engine.reject(.uninvited)
                if dropped > 0 { await engine.reject(.pendingInviteDropped, count: dropped) }
            }
            return []
        }
        return try await join(invite, key: key, from: peer)
    }

    /// Stores the chat (if new), asks every other member for its history, and acknowledges the invite.
    func join(_ invite: ChatInvite, key: EpochKey?, from peer: PeerID) async throws -> [Frame] {
        let joined = try await store.saveChat(invite, key: key, joinedAtMillis: clock.wallMillis)
        let others = joined ? try (store.members(of: invite.id) ?? []).filter { $0 != me && $0 != peer } : []
        let request = try syncRequest(chat: invite.id, to: others + [peer])
        if joined {
            logger.info(
                "joined chat", metadata: ["chat": "\(invite.id.shortHex)", "creator": "\(invite.creator.shortHex)"])
            await transmit(Dictionary(others.map { ($0, request) }, uniquingKeysWith: { first, _ in first }))
        }
        return [.inviteAck(invite.id)] + request
    }

    /// The chat's invite for a member that asks for it (`needInvite`): its message came here first. Nil
    /// for a chat this node does not hold, or a peer that is not one of its members.
    func invite(askedFor chat: ChatID, by peer: PeerID) throws -> Frame? {
        guard let invite = try store.chat(chat), try store.members(of: chat)?.contains(peer) == true else { return nil }
        return .invite(invite.encoded)
    }
}
