import Synchronization
import ParleyCrypto
public import ParleyCore
public import ParleyStore

/// Group membership: the creator writes a signed "Membership" message for each change. Every change
/// starts a new epoch with a fresh chat key sealed to the members of that epoch only, so a removed
/// member cannot read anything sent afterwards, even if a member that has not yet seen the change
/// forwards it.
extension Node {
    /// Adds members to a group this node created. They receive the invite and, with the change,
    /// every earlier key, so they read the history and tally like everyone else.
    @discardableResult
    public func addMembers(chat: ChatID, _ peers: [PeerID]) async throws -> StoredMessage {
        let membership = try changeableMembership(chat)
        let added = Set(peers)
        guard !added.isEmpty else { throw NodeError.invalid("name at least one member to add") }
        if let present = added.first(where: { membership.members.contains($0) }) {
            throw NodeError.invalid("\(present.shortHex) is already a member of chat \(chat.shortHex)")
        }
        guard let invite = try store.chat(chat) else { throw NodeError.notFound("no chat \(chat.shortHex)") }
        await pushReliably(added.map { (.invite(chat, to: $0), .invite(invite.encoded)) })
        return try await writeChange(membership, members: membership.members + added, historyFor: added)
    }

    /// Removes members from a group this node created; the chat is re-keyed without them.
    @discardableResult
    public func removeMembers(chat: ChatID, _ peers: [PeerID]) async throws -> StoredMessage {
        let membership = try changeableMembership(chat)
        let removed = Set(peers)
        guard !removed.isEmpty else { throw NodeError.invalid("name at least one member to remove") }
        guard !removed.contains(me) else { throw NodeError.invalid("the creator cannot leave or be removed from a group") }
        if let absent = removed.first(where: { !membership.members.contains($0) }) {
            throw NodeError.invalid("\(absent.shortHex) is not a member of chat \(chat.shortHex)")
        }
        return try await writeChange(membership, members: membership.members.filter { !removed.contains($0) }, historyFor: [])
    }

    private func changeableMembership(_ chat: ChatID) throws -> ChatMembership {
        guard let membership = try store.membership(of: chat) else { throw NodeError.notFound("no chat \(chat.shortHex)") }
        guard membership.kind == .group else { throw NodeError.invalid("the members of a direct chat cannot change") }
        guard membership.creator == me else {
            throw NodeError.invalid("only the chat's creator (\(membership.creator.shortHex)) can change its members")
        }
        guard membership.isKeyed else {
            throw NodeError.invalid("chat \(chat.shortHex) was made by an older Parley without chat keys; its members cannot change")
        }
        return membership
    }

    /// One change at a time per chat: two concurrent ones would claim the same epoch.
    private func writeChange(_ membership: ChatMembership, members: [PeerID], historyFor added: Set<PeerID>) async throws -> StoredMessage {
        let chat = membership.chat
        guard membershipChanges.withLock({ $0.insert(chat).inserted }) else {
            throw NodeError.invalid("another member change of chat \(chat.shortHex) is in progress")
        }
        defer { _ = membershipChanges.withLock { $0.remove(chat) } }
        let next = EpochKey(epoch: membership.epoch + 1, key: try ChatKey.generate())
        let history = added.isEmpty ? [] : try store.chatKeys(chat)
        let change = try MembershipChange.make(epoch: next.epoch, members: members) { member in
            added.contains(member) ? history + [next] : [next]
        }
        // The removed hear of it too (they learn they are out); they get no key.
        let recipients = Array(Set(membership.members + members))
        return try await submit(
            chat: chat, tag: .membership, content: change.encoded(), references: [], sealed: false, recipients: recipients, grants: [next])
    }
}
