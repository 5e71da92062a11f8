import Logging
import ParleyCore
import ParleyCrypto

/// Items the node pushes reliably and retransmits until acknowledged.
enum OutboundKey: LaneKeyed {
    case message(MessageID, to: PeerID)
    case invite(ChatID, to: PeerID)
    /// A read receipt for this message, to its author.
    case read(MessageID, to: PeerID)

    var peer: PeerID {
        switch self {
        case let .message(_, peer), let .invite(_, peer), let .read(_, peer): peer
        }
    }

    /// Each peer has its own push window.
    var lane: PeerID { peer }
}

/// The node's protocol state: sessions, peer addresses, frames waiting for a session, retransmits
/// and rejection counters. One actor, so every datagram sees a consistent state; it does no I/O.
actor NodeEngine {
    private var sessions: SessionTable
    private var addresses: [PeerID: PeerAddress] = [:]
    /// The newest announce timestamp accepted per peer: an announce is accepted only if newer,
    /// so a replayed one cannot redirect a peer's traffic.
    private var announcedAt: [PeerID: Int64] = [:]
    /// When this node last offered to answer a peer's announce (see `open`).
    private var answeredAnnounceAt: [PeerID: Duration] = [:]
    /// A peer's announces are answered at most this often: two nodes that only know each other's
    /// address from `--peer` learn each other's id, and an answer never answers an answer.
    static let announceAnswerInterval: Duration = .seconds(30)
    /// A peer counts as reached while one of its sessions heard from it this recently: beats come at
    /// least every 60 s (PROTOCOL.md §8.1), so twice that and a margin.
    static let liveWithin: Duration = .seconds(125)
    /// Handshakes aimed at the address an introducer saw for a member (`meet`, `meetAsked`): a few tries, a second
    /// apart, never recorded as the member's address, so a false one costs a few packets and
    /// displaces nothing. Kept per address: a false one named by a hostile member does not take the
    /// place of a true one. `left` counts the tries still to send, the next one at `next`.
    private var punches: [PunchTarget: (left: Int, next: Duration)] = [:]
    private struct PunchTarget: Hashable {
        let peer: PeerID
        let address: PeerAddress
    }
    static let punchAttempts = 3
    private static let maxRememberedPeers = 4_096
    private var waiting: [PeerID: [Frame]] = [:]
    private var reliableQueue = ReliableQueue<OutboundKey, Frame>()
    private var limiter: RateLimiter
    private(set) var rejections: [ProtocolRejection: Int] = [:]
    private(set) var datagramsIn = 0
    private(set) var datagramsOut = 0
    /// New messages stored, by whether their author's own node sent them or another member relayed
    /// them (its sync or retransmission): how much of the traffic goes around a missing session.
    private(set) var storedFromAuthors = 0
    private(set) var storedRelayed = 0
    /// Reliable frames sent again because their ack did not come within the timeout (a peer
    /// without a session included: the attempt is used up all the same).
    var framesRetransmitted: Int { reliableQueue.resentOnTimeout }
    private let maxWaiting: Int
    private let logger: Logger

    init(
        identity: Identity, maxWaiting: Int, rateLimits: RateLimiter.Configuration = .init(),
        logger: Logger = Logger(label: "parley.engine")
    ) {
        sessions = SessionTable(identity: identity)
        self.maxWaiting = maxWaiting
        limiter = RateLimiter(configuration: rateLimits)
        self.logger = logger
    }

    var me: PeerID { sessions.identity.publicKey }

    /// Counts a rejection. The trace names only the reason and the source: never content or keys.
    func reject(_ reason: ProtocolRejection, count: Int = 1, from source: PeerAddress? = nil) {
        rejections[reason, default: 0] += count
        logger.trace(
            "rejected",
            metadata: ["reason": "\(reason.rawValue)", "count": "\(count)", "from": "\(source?.description ?? "-")"])
    }

    func countStored(fromAuthors: Int, relayed: Int) {
        storedFromAuthors += fromAuthors
        storedRelayed += relayed
    }

    /// Whether the peer has a session that heard from it within `liveWithin`: a peer that restarted
    /// or moved leaves a session behind that this is false for.
    func isLive(_ peer: PeerID, now: Duration) -> Bool {
        sessions.lastHeard(from: peer).map { now - $0 < Self.liveWithin } ?? false
    }

    /// The peers of `peers` that are live.
    func live(among peers: [PeerID], now: Duration) -> Set<PeerID> { Set(peers.filter { isLive($0, now: now) }) }

    /// Where a live peer's session last heard from it: its address as this node observes it.
    func liveAddress(of peer: PeerID, now: Duration) -> PeerAddress? {
        isLive(peer, now: now) ? sessions.lastAddress(of: peer) : nil
    }

    /// An introduction (`Frame.meet`, `Frame.meetAsked`): an opening goes to `address` now, a handshake
    /// that leaves with `Rendezvous.openingHopLimit`; then, if `punch` says so, handshakes at full TTL
    /// from `handshakesAfter` on, a second apart, until a session with the peer exists. The address is
    /// not recorded as the peer's: a session made through it carries it.
    func meet(
        _ peer: PeerID, at address: PeerAddress, punch: Rendezvous.Punch, now: Duration, wallMillis: Int64
    ) -> [Datagram] {
        guard !isLive(peer, now: now), peer != me else { return [] }
        if let after = punch.handshakesAfter {
            let target = PunchTarget(peer: peer, address: address)
            if punches[target] == nil, punches.count >= Self.maxRememberedPeers { return [] }
            punches[target] = (Self.punchAttempts, now + after)
        }
        let opening = initiate(with: peer, at: address, now: now, wallMillis: wallMillis).map {
            Datagram(address: $0.address, bytes: $0.bytes, hopLimit: Rendezvous.openingHopLimit)
        }
        datagramsOut += opening.count
        return opening
    }

    /// The punches due now; those that got a session, or ran out of tries, are dropped.
    private func duePunches(now: Duration, wallMillis: Int64) -> [Datagram] {
        var out: [Datagram] = []
        for (target, punch) in punches where punch.next <= now {
            if isLive(target.peer, now: now) || punch.left == 0 {
                punches[target] = nil
                continue
            }
            punches[target] = (punch.left - 1, now + .seconds(1))
            out += initiate(with: target.peer, at: target.address, now: now, wallMillis: wallMillis)
        }
        datagramsOut += out.count
        return out
    }

    func learnAddress(_ address: PeerAddress, for peer: PeerID) {
        guard peer != me else { return }
        remember(&addresses, address, for: peer)
    }

    /// Bounded per-peer maps: anyone can mint identities, so an entry may be evicted (a peer that
    /// speaks again is simply learned again).
    private func remember<Value>(_ map: inout [PeerID: Value], _ value: Value, for peer: PeerID) {
        if map[peer] == nil, map.count >= Self.maxRememberedPeers,
            let victim = map.keys.first(where: { !isConnected($0) })
        {
            map[victim] = nil
        }
        map[peer] = value
    }

    func address(of peer: PeerID) -> PeerAddress? { sessions.session(for: peer)?.address ?? addresses[peer] }
    func isConnected(_ peer: PeerID) -> Bool { sessions.session(for: peer) != nil }
    func addressed(among peers: some Sequence<PeerID>) -> Set<PeerID> { Set(peers.filter { address(of: $0) != nil }) }
    var knownPeers: [PeerID: PeerAddress] { addresses }
    var connectedPeers: [PeerID] { sessions.connectedPeers }
    var pendingRetransmits: Int { reliableQueue.count }

    // MARK: Inbound

    struct Opened: Sendable {
        var frames: [(peer: PeerID, frames: [Frame])] = []
        var replies: [Datagram] = []
        var established: [PeerID] = []
        var announced: [PeerID] = []
        /// Announcers not reached lately, not offered an answer within `announceAnswerInterval`, with
        /// the address the announce came from: the node answers those that are contacts or share a chat.
        var answerable: [(peer: PeerID, address: PeerAddress)] = []
    }

    /// Authenticates and decrypts a batch; handshakes are answered here. Each datagram first takes a
    /// token from its source's bucket for its class (see `RateLimiter`), before any crypto work.
    func open(_ batch: [Datagram], now: Duration, wallMillis: Int64) -> Opened {
        var opened = Opened()
        datagramsIn += batch.count
        for datagram in batch {
            let packet: Packet
            do { packet = try Packet(decoding: datagram.bytes) } catch {
                let reason: ProtocolRejection = error.isUnsupportedVersion ? .unsupportedVersion : .malformed
                reject(
                    limiter.admit(.unauthenticated, from: datagram.address, now: now) ? reason : .rateLimited,
                    from: datagram.address)
                continue
            }
            guard limiter.admit(rateClass(of: packet), from: datagram.address, now: now) else {
                reject(.rateLimited, from: datagram.address)
                continue
            }
            do throws(ProtocolRejection) {
                switch packet {
                case let .data(index, counter, sealed):
                    let (peer, plaintext) = try sessions.open(
                        receiverIndex: index, counter: counter, sealed: sealed, from: datagram.address, now: now)
                    remember(&addresses, datagram.address, for: peer)
                    do { opened.frames.append((peer, try Frame.decodeAll(plaintext))) } catch {
                        reject(.malformed, from: datagram.address)
                    }
                case let .handshakeInit(index, ephemeral, sealed):
                    let (peer, response) = try sessions.handleInit(
                        senderIndex: index, ephemeral: ephemeral, sealed: sealed, from: datagram.address, now: now,
                        wallMillis: wallMillis)
                    remember(&addresses, datagram.address, for: peer)
                    opened.replies.append(response)
                    opened.established.append(peer)
                case let .handshakeResponse(sender, receiver, ephemeral, sealed):
                    let peer = try sessions.handleResponse(
                        senderIndex: sender, receiverIndex: receiver, ephemeral: ephemeral, sealed: sealed,
                        from: datagram.address, now: now)
                    remember(&addresses, datagram.address, for: peer)
                    opened.established.append(peer)
                case let .announce(peer, timestamp, signature):
                    guard peer != me else { continue }
                    try Announcement.verify(
                        peer: peer, timestampMillis: timestamp, signature: signature, wallMillis: wallMillis)
                    guard timestamp > announcedAt[peer, default: .min] else { throw ProtocolRejection.replayed }
                    remember(&announcedAt, timestamp, for: peer)
                    if addresses[peer] != datagram.address || !isConnected(peer) { opened.announced.append(peer) }
                    remember(&addresses, datagram.address, for: peer)
                    // The announcer may know only our address (`--peer`), not our id: an answer lets
                    // it reach us by id (to invite us, for one). Offered only for a peer not reached
                    // lately, at most once per interval; the node answers contacts and members only.
                    if !isLive(peer, now: now),
                        answeredAnnounceAt[peer].map({ now - $0 >= Self.announceAnswerInterval }) ?? true
                    {
                        remember(&answeredAnnounceAt, now, for: peer)
                        opened.answerable.append((peer, datagram.address))
                    }
                }
            } catch {
                reject(error, from: datagram.address)
            }
        }
        for peer in Set(opened.established) { opened.replies += flushWaiting(for: peer) }
        datagramsOut += opened.replies.count
        return opened
    }

    private func rateClass(of packet: Packet) -> RateLimiter.Class {
        switch packet {
        case let .data(index, _, _): sessions.holdsSession(index: index) ? .session : .unauthenticated
        case .handshakeInit, .handshakeResponse, .announce: .handshake
        }
    }

    // MARK: Outbound

    /// Seals frames for `peer`, or holds them and starts a handshake when there is no session yet.
    func datagrams(_ frames: [Frame], to peer: PeerID, now: Duration, wallMillis: Int64) -> [Datagram] {
        guard !frames.isEmpty, peer != me else { return [] }
        var out: [Datagram] = []
        if sessions.session(for: peer) != nil {
            out = seal(frames, for: peer)
        } else {
            var queue = waiting[peer, default: []]
            queue.append(contentsOf: frames)
            if queue.count > maxWaiting { queue.removeFirst(queue.count - maxWaiting) } // sync repairs what is dropped
            waiting[peer] = queue
        }
        out += handshakeIfNeeded(with: peer, now: now, wallMillis: wallMillis)
        datagramsOut += out.count
        return out
    }

    /// `datagrams(_:to:)` for many peers in one hop: a batch's replies to a hundred members are one
    /// engine call and one transport write, not a hundred of each waiting behind the others.
    func datagrams(_ framesByPeer: [PeerID: [Frame]], now: Duration, wallMillis: Int64) -> [Datagram] {
        framesByPeer.flatMap { datagrams($0.value, to: $0.key, now: now, wallMillis: wallMillis) }
    }

    /// Seals frames when a session exists; otherwise only starts a handshake and drops the frames
    /// (for frames that are rebuilt on establishment anyway, such as sync requests).
    func datagramsIfConnected(_ frames: [Frame], to peer: PeerID, now: Duration, wallMillis: Int64) -> [Datagram] {
        guard isConnected(peer) else {
            let out = handshakeIfNeeded(with: peer, now: now, wallMillis: wallMillis)
            datagramsOut += out.count
            return out
        }
        return datagrams(frames, to: peer, now: now, wallMillis: wallMillis)
    }

    /// `datagramsIfConnected` for many peers in one hop: a heartbeat to a hundred members is one
    /// engine call and one transport write, not a hundred of each.
    func datagramsIfConnected(_ frames: [Frame], toEach peers: some Sequence<PeerID>, now: Duration, wallMillis: Int64)
        -> [Datagram]
    {
        peers.flatMap { datagramsIfConnected(frames, to: $0, now: now, wallMillis: wallMillis) }
    }

    /// The same, and how many of the peers had a session (the others only get a handshake started).
    func datagramsCountingConnected(
        _ frames: [Frame], toEach peers: [PeerID], now: Duration, wallMillis: Int64
    ) -> (datagrams: [Datagram], connected: Int) {
        (datagramsIfConnected(frames, toEach: peers, now: now, wallMillis: wallMillis), peers.count(where: isConnected))
    }

    /// Queues frames to be sent, within each peer's window, and retransmitted until `acknowledge`.
    func reliable(_ items: [(key: OutboundKey, frame: Frame)], now: Duration, wallMillis: Int64) -> [Datagram] {
        let sends = reliableQueue.push(items.map { ($0.key, $0.frame) }, now: now)
        return byPeer(sends).flatMap { datagrams($0.frames, to: $0.peer, now: now, wallMillis: wallMillis) }
    }

    /// Records acks; returns the queued frames the room they free lets out.
    func acknowledge(_ keys: [OutboundKey], now: Duration, wallMillis: Int64) -> [Datagram] {
        let sends = reliableQueue.acknowledge(keys, now: now)
        return byPeer(sends).flatMap { datagrams($0.frames, to: $0.peer, now: now, wallMillis: wallMillis) }
    }

    /// Groups frames by peer, keeping their order, so a peer's small messages share datagrams.
    private func byPeer(_ sends: [(lane: PeerID, payload: Frame)]) -> [(peer: PeerID, frames: [Frame])] {
        var groups: [(peer: PeerID, frames: [Frame])] = []
        var position: [PeerID: Int] = [:]
        for (peer, frame) in sends {
            if let index = position[peer] {
                groups[index].frames.append(frame)
            } else {
                position[peer] = groups.count
                groups.append((peer, [frame]))
            }
        }
        return groups
    }

    /// Retransmits due items (held back while this node's own input waits, see `ReliableQueue.takeDue`)
    /// and retries handshakes for peers with waiting frames; `idle` says nothing waits for an ack or a
    /// handshake any more, so the timers may run less often.
    func tick(now: Duration, wallMillis: Int64, inputDelay: Duration = .zero) -> (datagrams: [Datagram], idle: Bool) {
        // A retransmit to a peer without a session uses up the attempt; the copy queued for the
        // handshake remains.
        let retransmits = byPeer(reliableQueue.takeDue(now: now, inputDelay: inputDelay)).filter {
            sessions.session(for: $0.peer) != nil
        }
        // `datagrams` counts what it makes.
        let out = retransmits.flatMap { datagrams($0.frames, to: $0.peer, now: now, wallMillis: wallMillis) }
        let handshakes = waiting.keys.flatMap { handshakeIfNeeded(with: $0, now: now, wallMillis: wallMillis) }
        datagramsOut += handshakes.count
        let punched = duePunches(now: now, wallMillis: wallMillis)
        return (out + handshakes + punched, reliableQueue.count == 0 && waiting.isEmpty && punches.isEmpty)
    }

    func handshakeIfNeeded(with peer: PeerID, now: Duration, wallMillis: Int64) -> [Datagram] {
        guard let address = address(of: peer), sessions.needsHandshake(with: peer, now: now) else { return [] }
        return initiate(with: peer, at: address, now: now, wallMillis: wallMillis)
    }

    private func initiate(with peer: PeerID, at address: PeerAddress, now: Duration, wallMillis: Int64) -> [Datagram] {
        do { return [try sessions.initiate(with: peer, at: address, now: now, wallMillis: wallMillis)] } catch {
            reject(.badSignature) // the peer's key cannot be converted for key agreement: it is not a valid identity
            return []
        }
    }

    private func flushWaiting(for peer: PeerID) -> [Datagram] {
        guard let frames = waiting.removeValue(forKey: peer) else { return [] }
        return seal(frames, for: peer)
    }

    /// Packs frames into datagram-sized plaintexts and seals each for the peer's current session.
    private func seal(_ frames: [Frame], for peer: PeerID) -> [Datagram] {
        Frame.pack(frames).compactMap { sessions.seal($0, for: peer) }
    }
}
