public import ParleyCrypto

/// Who is here now. A peer is online while its newest accepted heartbeat (`PresenceBeat`) is `online`
/// and its `timeout` has not passed on the monotonic clock, or while traffic from it (anything on its
/// own session, or a message of its relayed by another member) is that recent: a node that just
/// joined a chat, or whose beat is still up to an interval away, is plainly here when it talks. A
/// `leaving` beat shows it offline at once, whatever was heard before, until a newer `online` beat.
/// Only peers in `tracked` are kept, so anyone on the network cannot grow the table.
public struct PresenceTable: Sendable {
    public enum Status: Sendable, Hashable {
        case online
        /// `lastSeenWallMillis` is the wall time of the newest thing heard from the peer (its beat's
        /// or message's own time, or this node's at traffic on its session); nil if never heard.
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

    /// The newest traffic from a peer: when (monotonic), its wall time, and who relayed it, if anyone.
    private struct Heard: Sendable {
        var at: Duration
        var wallMillis: Int64
        var via: PeerID?
    }

    private var entries: [PeerID: Entry] = [:]
    private var heard: [PeerID: Heard] = [:]
    /// How long traffic keeps a peer online when no beat of its announced a timeout: the timeout of a
    /// beat at this node's own shortest interval.
    public let trafficTimeout: Duration
    /// The peers whose beats are kept: those sharing a chat with us.
    public private(set) var tracked: Set<PeerID> = []

    public init(trafficTimeout: Duration = PresenceBeat.timeout(interval: .seconds(5))) {
        self.trafficTimeout = trafficTimeout
    }

    /// Keeps an accepted beat if it is from a tracked peer and newer than the one held (a `leaving`
    /// beat also wins a tie); `via` is the member that relayed it, if another did. Returns whether it was kept.
    @discardableResult
    public mutating func record(_ beat: PresenceBeat, via relayer: PeerID? = nil, now: Duration) -> Bool {
        guard tracked.contains(beat.peer) else { return false }
        if let held = entries[beat.peer],
            beat.wallMillis < held.wallMillis || (beat.wallMillis == held.wallMillis && beat.status != .leaving)
        {
            return false
        }
        entries[beat.peer] = Entry(
            wallMillis: beat.wallMillis, status: beat.status, receivedAt: now, timeout: beat.timeout, via: relayer)
        return true
    }

    /// Keeps traffic from a tracked peer heard at `at` (with that wall time; `via` the member that
    /// relayed it, if another did) when it is newer than the traffic held. Returns whether it was kept.
    @discardableResult
    public mutating func recordHeard(_ peer: PeerID, wallMillis: Int64, via relayer: PeerID? = nil, at: Duration)
        -> Bool
    {
        guard tracked.contains(peer) else { return false }
        if let held = heard[peer], at < held.at || (at == held.at && relayer != nil) { return false }
        heard[peer] = Heard(at: at, wallMillis: wallMillis, via: relayer)
        return true
    }

    public func status(of peer: PeerID, now: Duration) -> Status {
        statusAndRelayer(of: peer, now: now).status
    }

    /// `status(of:now:)` and `relayer(of:now:)` in one look-up, as a member list shows both.
    public func statusAndRelayer(of peer: PeerID, now: Duration) -> (status: Status, via: PeerID?) {
        let presence = presence(of: peer, now: now)
        return (presence.online ? .online : .offline(lastSeenWallMillis: lastSeen(of: peer)), presence.via)
    }

    /// The member whose relaying shows `peer` online now; nil when its own session does, or it is offline.
    public func relayer(of peer: PeerID, now: Duration) -> PeerID? {
        presence(of: peer, now: now).via
    }

    /// Online by its beat or by its traffic, preferring whichever came on the peer's own session.
    private func presence(of peer: PeerID, now: Duration) -> (online: Bool, via: PeerID?) {
        let beat = entries[peer]
        let byBeat = beat.map { $0.status == .online && now - $0.receivedAt < $0.timeout } ?? false
        // A goodbye outlasts traffic: a datagram sent before it may arrive after it.
        let byTraffic =
            beat?.status != .leaving && heard[peer].map { now - $0.at < (beat?.timeout ?? trafficTimeout) } ?? false
        switch (byBeat, byTraffic) {
        case (true, true): return (true, beat?.via == nil ? nil : heard[peer]?.via)
        case (true, false): return (true, beat?.via)
        case (false, true): return (true, heard[peer]?.via)
        case (false, false): return (false, nil)
        }
    }

    /// The wall time of whichever was received last on this node's clock: the newest beat or traffic.
    private func lastSeen(of peer: PeerID) -> Int64? {
        switch (entries[peer], heard[peer]) {
        case let (beat?, traffic?): traffic.at > beat.receivedAt ? traffic.wallMillis : beat.wallMillis
        case let (beat?, nil): beat.wallMillis
        case let (nil, traffic?): traffic.wallMillis
        case (nil, nil): nil
        }
    }

    /// Sets the peers to track and forgets everyone else.
    public mutating func track(_ peers: Set<PeerID>) {
        tracked = peers
        entries = entries.filter { peers.contains($0.key) }
        heard = heard.filter { peers.contains($0.key) }
    }
}
