public import ParleyCore
public import ParleyCrypto
import ParleyStore

/// Whether this node has any way to reach a chat's members: what `chat create` and `send` warn about
/// when a member can never receive anything (issue: a contact added without an address, whose node
/// never announced itself here).
extension Node {
    /// The members of each chat that this node cannot reach: it knows no address for them (no
    /// session, no contact address, no announce) and no address for any other member who could carry
    /// the chat to them (sync relays every message; a reached member introduces, §12a). A member
    /// behind a member with an address is not listed: that route may work. Chats not joined map to [].
    public func membersWithoutRoute(chats: [ChatID]) async throws -> [ChatID: [PeerID]] {
        let memberships = try store.memberships()
        let everyone = Set(chats.flatMap { memberships[$0] ?? [] })
        let addressed = await engine.addressed(among: everyone)
        return chats.reduce(into: [:]) { result, chat in
            result[chat] = Self.withoutRoute(members: memberships[chat] ?? [], me: me, addressed: addressed)
        }
    }

    /// The rule: every other member when none of them has an address; nobody otherwise.
    static func withoutRoute(members: [PeerID], me: PeerID, addressed: Set<PeerID>) -> [PeerID] {
        let others = members.filter { $0 != me }
        return others.contains(where: addressed.contains) ? [] : others
    }
}
