public import ParleyCrypto

/// Who is typing in which chat, never stored: an indicator lasts `expiry` after its latest refresh
/// on the monotonic clock, or until the peer says it stopped. Callers admit only current members.
public struct TypingTable: Sendable {
    public let expiry: Duration
    /// When each peer's indicator was last refreshed, per chat.
    private var refreshed: [ChatID: [PeerID: Duration]] = [:]

    public init(expiry: Duration) { self.expiry = expiry }

    /// Records an indicator; returns whether the chat's set of typing peers changed.
    @discardableResult
    public mutating func record(_ peer: PeerID, chat: ChatID, active: Bool, now: Duration) -> Bool {
        let before = typing(in: chat, now: now)
        var peers = refreshed[chat, default: [:]].filter { now - $0.value < expiry }
        peers[peer] = active ? now : nil
        refreshed[chat] = peers.isEmpty ? nil : peers
        return typing(in: chat, now: now) != before
    }

    /// Whether any indicator is held (expired ones count until `expire` drops them).
    public var isEmpty: Bool { refreshed.isEmpty }

    /// The peers typing in `chat` now, sorted.
    public func typing(in chat: ChatID, now: Duration) -> [PeerID] {
        (refreshed[chat] ?? [:]).filter { now - $0.value < expiry }.keys.sorted()
    }

    /// Drops expired indicators; returns the chats whose set changed, with their new set.
    public mutating func expire(now: Duration) -> [ChatID: [PeerID]] {
        var changed: [ChatID: [PeerID]] = [:]
        for (chat, peers) in refreshed {
            let live = peers.filter { now - $0.value < expiry }
            guard live.count != peers.count else { continue }
            refreshed[chat] = live.isEmpty ? nil : live
            changed[chat] = live.keys.sorted()
        }
        return changed
    }
}
