public import ParleyCrypto

/// Who is here now, from accepted heartbeats (`PresenceBeat`). A peer is online from an `online` beat
/// until that beat's `timeout` passes on the monotonic clock without another, and offline at once on `leaving`.
/// Only peers in `tracked` are kept, so anyone on the network cannot grow the table.
public struct PresenceTable: Sendable {
    public enum Status: Sendable, Hashable {
        case online
        /// `lastSeenWallMillis` is the sender's wall time of its newest beat; nil if never heard.
        case offline(lastSeenWallMillis: Int64?)
    }

    private struct Entry: Sendable {
        var wallMillis: Int64
        var status: PresenceBeat.Status
        var receivedAt: Duration
        var timeout: Duration
        /// The member that relayed it (PROTOCOL.md §12a), or nil when the peer's own session brought it.
        var via: PeerID?
    }

    private var entries: [PeerID: Entry] = [:]
    /// The peers whose beats are kept: those sharing a chat with us.
    public private(set) var tracked: Set<PeerID> = []

    public init() {}

    /// Keeps an accepted beat if it is from a tracked peer and newer than the one held (a `leaving`
    /// beat also wins a tie); `via` is the member that relayed it, if another did. Returns whether it was kept.
    @discardableResult
    public mutating func record(_ beat: PresenceBeat, via relayer: PeerID? = nil, now: Duration) -> Bool {
        guard tracked.contains(beat.peer) else { return false }
        if let held = entries[beat.peer],
           beat.wallMillis < held.wallMillis || (beat.wallMillis == held.wallMillis && beat.status != .leaving) {
            return false
        }
        entries[beat.peer] = Entry(wallMillis: beat.wallMillis, status: beat.status, receivedAt: now, timeout: beat.timeout, via: relayer)
        return true
    }

    public func status(of peer: PeerID, now: Duration) -> Status {
        guard let entry = entries[peer] else { return .offline(lastSeenWallMillis: nil) }
        if entry.status == .online, now - entry.receivedAt < entry.timeout { return .online }
        return .offline(lastSeenWallMillis: entry.wallMillis)
    }

    /// The member whose relaying shows `peer` online now; nil when its own beats do, or it is offline.
    public func relayer(of peer: PeerID, now: Duration) -> PeerID? {
        guard status(of: peer, now: now) == .online else { return nil }
        return entries[peer]?.via
    }

    /// Sets the peers to track and forgets everyone else.
    public mutating func track(_ peers: Set<PeerID>) {
        tracked = peers
        entries = entries.filter { peers.contains($0.key) }
    }
}
