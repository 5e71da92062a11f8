import Synchronization
public import ParleyCrypto
public import ParleyCore
public import ParleyStore

/// Group membership: the creator writes a signed "Membership" message for each change. Every change
/// starts a new epoch with a fresh chat key sealed to the members of that epoch only, so a removed
/// member cannot read what is sealed for later epochs, even when a member forwards it. (A member
/// that has not seen the change yet still seals with the previous key until it does.)
extension Node {
    /// Adds members to a group this node created. They receive the invite and, with the change,
    /// every earlier key, so they read the history and tally like everyone else.
    @discardableResult
    public func addMembers(chat: ChatID, _ peers: [PeerID]) async throws -> StoredMessage {
        let added = Set(peers)
        guard !added.isEmpty else { throw NodeError.invalid("name at least one member to add") }
        guard let invite = try store.chat(chat) else { throw NodeError.notFound("no chat \(chat.shortHex)") }
        let change = try await changeMembers(chat, historyFor: added) { current in
            if let present = added.first(where: { current.contains($0) }) {
                throw NodeError.invalid("\(present.shortHex) is already a member of chat \(chat.shortHex)")
            }
            return current + added
        }
        // Only once the change is stored: a refused change must not have shown them the chat.
        await pushReliably(added.map { (.invite(chat, to: $0), .invite(invite.encoded)) })
        return change
    }

    /// Removes members from a group this node created; the chat is re-keyed without them.
    @discardableResult
    public func removeMembers(chat: ChatID, _ peers: [PeerID]) async throws -> StoredMessage {
        let removed = Set(peers)
        guard !removed.isEmpty else { throw NodeError.invalid("name at least one member to remove") }
        guard !removed.contains(me) else {
            throw NodeError.invalid("the creator cannot leave or be removed from a group")
        }
        return try await changeMembers(chat, historyFor: []) { current in
            if let absent = removed.first(where: { !current.contains($0) }) {
                throw NodeError.invalid("\(absent.shortHex) is not a member of chat \(chat.shortHex)")
            }
            return current.filter { !removed.contains($0) }
        }
    }

    private func changeableMembership(_ chat: ChatID) throws -> ChatMembership {
        guard let membership = try store.membership(of: chat) else {
            throw NodeError.notFound("no chat \(chat.shortHex)")
        }
        guard membership.kind == .group else { throw NodeError.invalid("the members of a direct chat cannot change") }
        guard membership.creator == me else {
            throw NodeError.invalid("only the chat's creator (\(membership.creator.shortHex)) can change its members")
        }
        guard membership.isKeyed else {
            throw NodeError.invalid(
                "chat \(chat.shortHex) was made by an older Parley without chat keys; its members cannot change")
        }
        return membership
    }

    /// One change at a time per chat, decided on the membership read under that lock: two concurrent
    /// changes would otherwise claim the same epoch from the same stale member list.
    private func changeMembers(
        _ chat: ChatID, historyFor added: Set<PeerID>, _ newMembers: ([PeerID]) throws -> [PeerID]
    ) async throws -> StoredMessage {
        guard membershipChanges.withLock({ $0.insert(chat).inserted }) else {
            throw NodeError.invalid("another member change of chat \(chat.shortHex) is in progress; try again")
        }
        defer { _ = membershipChanges.withLock { $0.remove(chat) } }
        let membership = try changeableMembership(chat)
        let members = try newMembers(membership.members)
        let (epoch, overflow) = membership.epoch.addingReportingOverflow(1)
        guard !overflow else { throw NodeError.invalid("chat \(chat.shortHex) has used up its membership epochs") }
        let next = EpochKey(epoch: epoch, key: try ChatKey.generate())
        let history = added.isEmpty ? [] : try store.chatKeys(chat)
        let change = try MembershipChange.make(epoch: next.epoch, members: members) { member in
            added.contains(member) ? history + [next] : [next]
        }
        // The removed hear of it too (they learn they are out); they get no key.
        let recipients = Array(Set(membership.members + members))
        return try await enqueue(
            chat: chat, tag: .membership, content: change.encoded(), references: [], sealed: false,
            recipients: recipients,
            startsEpoch: EpochStart(key: next, members: members))
    }
}
