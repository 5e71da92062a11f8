public import ParleyCore
public import ParleyCrypto
public import ParleyStore

/// Starting a chat and writing plain text in it: what a front end calls first (the queries it reads
/// with are in `Node+Queries`).
extension Node {
    /// Creates a chat with a fresh chat key sealed to every member, stores it, and pushes the signed
    /// invite to every member until acknowledged. A direct chat has exactly one other member; asking for
    /// a second one with the same person returns the first.
    public func createChat(title: String, members: [PeerID], kind: ChatKind = .group) async throws -> ChatInvite {
        let others = Set(members).subtracting([me])
        if kind == .direct, others.count != 1 {
            throw NodeError.invalid("a direct chat is with exactly one other person")
        }
        // One direct chat per person: asking again opens the one there is.
        if kind == .direct,
            let existing = try store.chats().first(where: {
                $0.kind == .direct && Set($0.members) == others.union([me])
            })
        {
            return existing.invite
        }
        let key = try ChatKey.generate()
        let invite = try ChatInvite.create(
            by: identity, kind: kind, title: title, members: Array(others), key: key, createdAtMillis: clock.wallMillis)
        _ = try await store.saveChat(invite, key: EpochKey(epoch: 0, key: key), joinedAtMillis: clock.wallMillis)
        await pushReliably(
            invite.members.filter { $0 != me }.map { (.invite(invite.id, to: $0), .invite(invite.encoded)) })
        return invite
    }

    /// Sends `text` as a "Text" message to every member of the chat; each `@name` of a member becomes
    /// a mention of that member (`resolvingMentions`).
    public func sendText(chat: ChatID, _ text: String, references: [MessageReference] = []) async throws
        -> StoredMessage
    {
        try await send(
            chat: chat, tag: .text, content: Array(try resolvingMentions(text, chat: chat).utf8),
            references: references)
    }
}
