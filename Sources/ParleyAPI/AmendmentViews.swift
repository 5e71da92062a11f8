/// A pinned message, with who pinned it.
public struct PinView: Codable, Sendable, Hashable {
    public let message: MessageView
    public let pinnedBy: MemberView
    /// The pin's time by its author's clock (Unix ms).
    public let pinnedAtMillis: Int64
}

/// A message and its replies, in history order.
public struct ThreadView: Codable, Sendable, Hashable {
    public let root: MessageView
    public let replies: [MessageView]
}

/// A message's versions: the original first, then each counted edit, in its author's chain order.
public struct EditHistoryView: Codable, Sendable, Hashable {
    /// The message as it shows now.
    public let message: MessageView
    public let versions: [EditVersionView]
}

public struct EditVersionView: Codable, Sendable, Hashable {
    /// The id of the message that carried this text: the original, or an Edit.
    public let id: String
    public let text: String
    public let timestampMillis: Int64
}

/// The answer to `deleteForMe`: the message is no longer in this user's views.
public struct DeletedForMeView: Codable, Sendable, Hashable {
    public let chat: String
    public let message: String
}
