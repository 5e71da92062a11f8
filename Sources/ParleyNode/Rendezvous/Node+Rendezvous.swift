import Logging
import ParleyCore
import ParleyCrypto
import Synchronization

/// Rendezvous through a member (PROTOCOL.md §12a): two members of a chat without a session between
/// them (each behind its own NAT, or one knowing no address for the other) ask a member they both
/// reach to introduce them. It tells each the other's observed address, and both handshake at once,
/// which opens both NATs where they map endpoint-independently. Where that fails, they keep
/// converging through the members' sync, as before.
extension Node {
    /// Each sync round: members of our chats with no session get an introduction asked of up to two
    /// members of that chat that have one, at most once per `Rendezvous.askInterval` per member.
    func askIntroductions(_ memberships: [ChatID: [PeerID]]) async {
        var frames: [PeerID: [Frame]] = [:]
        for (_, members) in memberships.sorted(by: { $0.key.rawRepresentation.lexicographicallyPrecedes($1.key.rawRepresentation) }) {
            let others = members.filter { $0 != me }
            let connected = await engine.connected(among: others)
            let introducers = others.filter(connected.contains).sorted { $0.rawRepresentation.lexicographicallyPrecedes($1.rawRepresentation) }
            guard !introducers.isEmpty else { continue }
            for peer in others where !connected.contains(peer) {
                guard rendezvous.withLock({ $0.shouldAsk(about: peer, now: clock.now) }) else { continue }
                for introducer in introducers.prefix(Rendezvous.introducersAsked) {
                    frames[introducer, default: []].append(.meetRequest(peer))
                }
            }
        }
        await transmit(frames)
    }

    /// `requester` asked to meet each of `targets`: introduced when this node shares a chat with both
    /// and has a session with both; each then gets the other's address as this node sees it. Nothing
    /// else is ever sent: no address this node did not observe on an authenticated session.
    func introduce(_ requests: [(requester: PeerID, target: PeerID)]) async throws {
        guard !requests.isEmpty else { return }
        let memberships = try joinedMemberships()
        var frames: [PeerID: [Frame]] = [:]
        for (requester, target) in requests where target != me && requester != target {
            guard Rendezvous.sharing([me, requester, target], in: memberships).contains(target) else { continue }
            // Whether or not they meet now, the asker has no session with the target: its beats go
            // through here meanwhile.
            rendezvous.withLock { $0.relayBeats(of: target, to: requester, now: clock.now) }
            guard let seenAtTarget = await engine.sessionAddress(of: target),
                  let seenAtRequester = await engine.sessionAddress(of: requester),
                  rendezvous.withLock({ $0.shouldIntroduce(requester, to: target, now: clock.now) })
            else { continue }
            frames[requester, default: []].append(.meet(peer: target, address: seenAtTarget))
            frames[target, default: []].append(.meet(peer: requester, address: seenAtRequester))
            logger.debug("introduced", metadata: ["requester": "\(requester.shortHex)", "target": "\(target.shortHex)"])
        }
        await transmit(frames)
    }

    /// `introducer` says `peer` is at `address`: acted on when all three share a chat, this node has
    /// no session with `peer`, and no `meet` for it was acted on within `Rendezvous.meetInterval`. The
    /// address is learned and one handshake goes out now; the sync rounds retry it like any address.
    func meet(_ introductions: [(introducer: PeerID, peer: PeerID, address: PeerAddress)]) async throws {
        guard !introductions.isEmpty else { return }
        let memberships = try joinedMemberships()
        var handshakes: [Datagram] = []
        for (introducer, peer, address) in introductions where peer != me && peer != introducer {
            guard Rendezvous.sharing([me, introducer, peer], in: memberships).contains(peer),
                  !(await engine.isConnected(peer)),
                  rendezvous.withLock({ $0.shouldMeet(peer, now: clock.now) })
            else { continue }
            handshakes += await engine.meet(peer, at: address, now: clock.now, wallMillis: clock.wallMillis)
        }
        await transmit(handshakes)
    }
}
