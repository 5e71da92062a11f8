import ParleyNode
public import ParleyCore
public import ParleyCrypto
public import ParleyStore

/// Pending invites: invites from people who are not contacts, waiting for this user's answer.
extension APIService {
    func invites() throws -> [PendingInviteView] {
        let names = try names()
        return try node.pendingInvites().map { PendingInviteView($0, names: names, me: node.me) }
    }

    func acceptInvite(_ prefix: String, name: String?) async throws -> ChatView {
        let pending = try node.resolvePendingInvite(prefix: prefix)
        let invite = try await node.acceptInvite(chat: pending.invite.id, contactName: name)
        return try await chatView(invite.id)
    }

    func declineInvite(_ prefix: String) async throws -> PendingInviteView {
        let pending = try node.resolvePendingInvite(prefix: prefix)
        try await node.declineInvite(chat: pending.invite.id)
        return PendingInviteView(pending, names: try names(), me: node.me)
    }
}

/// `parley invites --json`: one invite waiting for this user's answer.
public struct PendingInviteView: Codable, Sendable, Hashable {
    /// The chat's id: what `invites accept` and `invites decline` take (any unique prefix).
    public let id: String
    public let kind: String
    public let title: String
    /// Who made the chat (and signed the invite): its key, and its name if already a contact.
    public let creator: MemberView
    /// The members it was made with other than you (the creator included), sorted by name.
    public let members: [MemberView]
    public let createdAtMillis: Int64
    public let receivedAtMillis: Int64

    public init(_ pending: PendingInvite, names: [PeerID: String], me: PeerID) {
        let invite = pending.invite
        id = invite.id.hex
        kind = invite.kind.rawValue
        title = invite.title
        creator = MemberView(id: invite.creator.hex, name: names[invite.creator])
        members = invite.members.filter { $0 != me }.map { MemberView(id: $0.hex, name: names[$0]) }.sorted(
            by: MemberView.byName)
        createdAtMillis = invite.createdAtMillis
        receivedAtMillis = pending.receivedAtMillis
    }
}
