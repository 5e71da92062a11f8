public import ParleyCore

/// An invite from someone who is not a contact, held until the user accepts or declines it.
public struct PendingInvite: Sendable, Hashable {
    public let invite: ChatInvite
    /// The peer that pushed it (the creator, or a member relaying it).
    public let sender: PeerID
    public let receivedAtMillis: Int64
}

/// What `MessageStore.holdInvite` did with an invite.
public enum InviteHolding: Sendable, Hashable {
    /// Newly held; `dropped` older pending invites made room (the creator's own oldest past
    /// `maxPendingInvitesPerCreator`, then the oldest of all past `maxPendingInvites`).
    case held(dropped: Int)
    /// Already held (pending or declined) or already joined: nothing was written.
    case known
}

/// An invite this node holds without having joined its chat.
public struct HeldInvite: Sendable, Hashable {
    public enum State: String, Sendable, Hashable { case pending, declined }
    public let state: State
    /// Who signed it; nil only for a row from before the creator was recorded whose invite no longer decodes.
    public let creator: PeerID?
}
