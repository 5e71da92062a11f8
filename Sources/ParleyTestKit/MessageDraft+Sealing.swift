public import ParleyCore
public import ParleyCrypto

extension MessageDraft {
    /// Signs the draft as a member of a keyed chat would: content sealed with the epoch-0 key the
    /// invite grants `identity`. Someone the invite does not name has no key and seals with a
    /// made-up one, as an outsider must. Lets tests post as hand-made (hostile) members.
    public func sealedAndSigned(in invite: ChatInvite, by identity: Identity) throws -> Message {
        guard invite.isKeyed else { return try signed(by: identity) }
        let key = try invite.key(for: identity) ?? EpochKey(epoch: 0, key: ChatKey.generate())
        var draft = self
        draft.content = SealedContent.seal(content, with: key, chat: chat, author: author, sequence: sequence)
        return try draft.signed(by: identity)
    }
}
