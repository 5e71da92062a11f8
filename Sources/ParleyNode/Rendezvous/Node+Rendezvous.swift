import Logging
import ParleyCore
import ParleyCrypto
import ParleyStore
import Synchronization

/// Rendezvous through a member (PROTOCOL.md §12a): two members of a chat without a session between
/// them (each behind its own NAT, or one knowing no address for the other) ask a member they both
/// reach to introduce them. It tells each the other's observed address: the requester sends an
/// opening there, a handshake that dies past its own router, and the target then handshakes through
/// the hole it opened, which works where NATs map endpoint-independently. Where that fails, they keep
/// converging through the members' sync and the introducer's pushes, and see each other's beats relayed.
extension Node {
    /// Each sync round: members of our chats not reached lately get an introduction asked of members
    /// of that chat this node reaches, taking turns (`Rendezvous.introducers(toAsk:…)`).
    func askIntroductions(_ memberships: [ChatID: [PeerID]]) async {
        let now = clock.now
        let everyone = Array(Set(memberships.values.joined()).subtracting([me]))
        let live = await engine.live(among: everyone, now: now)
        let addressed = await engine.addressed(among: everyone)
        var frames: [PeerID: [Frame]] = [:]
        for (_, members) in memberships {
            let others = members.filter { $0 != me }
            let introducers = others.filter(live.contains).sorted()
            for peer in others {
                if live.contains(peer) {
                    rendezvous.withLock { $0.reached(peer) }
                    continue
                }
                let online = presenceHub.status(of: peer, now: now) == .online
                let holdsAddress = addressed.contains(peer)
                let chosen = rendezvous.withLock {
                    $0.introducers(
                        toAsk: peer, among: introducers, showsOnline: online, holdsAddress: holdsAddress, now: now)
                }
                for introducer in chosen { frames[introducer, default: []].append(.meetRequest(peer)) }
            }
        }
        await transmit(frames)
    }

    /// Messages of `chats` came relayed from authors this node does not reach: the questions of those
    /// chats go now, not at the next sync round, so the member relaying them pushes those authors' next
    /// messages here at once (`relayOnward`). The questions keep their own pace (`Rendezvous.introducers`).
    func askIntroductions(after chats: Set<ChatID>) async {
        guard !chats.isEmpty, let memberships = try? joinedMemberships().filter({ chats.contains($0.key) }),
            !memberships.isEmpty
        else { return }
        await askIntroductions(memberships)
    }

    /// `requester` asked to meet each of `targets`: introduced when this node shares a chat with both
    /// and reaches both; each then gets the other's address as this node sees it, the requester in a
    /// `meet` and the target in a `meetAsked`. Nothing else is ever sent: no address this node did not
    /// observe on an authenticated session.
    func introduce(_ requests: [(requester: PeerID, target: PeerID)]) async {
        guard !requests.isEmpty, let memberships = try? joinedMemberships() else { return }
        let now = clock.now
        var frames: [PeerID: [Frame]] = [:]
        for (requester, target) in requests where target != me && requester != target {
            guard Rendezvous.shareAChat([me, requester, target], in: memberships) else { continue }
            // Whether or not they meet now, the asker has no session with the target: its beats go
            // through here meanwhile.
            rendezvous.withLock { $0.relayBeats(of: target, to: requester, now: now) }
            guard let seenAtTarget = await engine.liveAddress(of: target, now: now),
                let seenAtRequester = await engine.liveAddress(of: requester, now: now),
                rendezvous.withLock({ $0.shouldIntroduce(requester, to: target, now: now) })
            else { continue }
            frames[requester, default: []].append(.meet(peer: target, address: seenAtTarget))
            frames[target, default: []].append(.meetAsked(peer: requester, address: seenAtRequester))
            logger.debug(
                "introduced", metadata: ["requester": "\(requester.shortHex)", "target": "\(target.shortHex)"])
        }
        await transmit(frames)
    }

    /// `introducer` says `peer` is at `address`: acted on, while all three share a chat, as the answer
    /// to a question this node asked that introducer about that peer, or as the target of the peer's
    /// question, each at its pace (`Rendezvous.punch`); then an opening and maybe handshakes go to that
    /// address (`NodeEngine.meet`), which is never recorded as the peer's. So a member cannot aim this
    /// node's packets anywhere more often than its rounds allow.
    func meet(_ introductions: [(introducer: PeerID, peer: PeerID, address: PeerAddress, side: Rendezvous.Side)])
        async
    {
        guard !introductions.isEmpty, let memberships = try? joinedMemberships() else { return }
        let now = clock.now
        // A member reached already needs no punching: its introduction does not use up a round.
        let live = await engine.live(among: introductions.map(\.peer), now: now)
        var handshakes: [Datagram] = []
        for (introducer, peer, address, side) in introductions where peer != me && peer != introducer {
            guard !live.contains(peer), Rendezvous.shareAChat([me, introducer, peer], in: memberships),
                let punch = rendezvous.withLock({ $0.punch(side, toward: peer, from: introducer, now: now) })
            else { continue }
            handshakes += await engine.meet(peer, at: address, punch: punch, now: now, wallMillis: clock.wallMillis)
        }
        await transmit(handshakes)
    }

    /// Announcers not reached lately that are contacts, or share a chat with this node, get this
    /// node's own announce at the address theirs came from: a node given only `--peer HOST:PORT`
    /// learns who listens there. Nobody else is answered, so a stranger learns nothing new.
    func answerAnnounces(_ announcers: [(peer: PeerID, address: PeerAddress)]) async {
        guard !announcers.isEmpty else { return }
        let sharing = Set(((try? joinedMemberships()) ?? [:]).values.joined())
        let answered = announcers.filter { sharing.contains($0.peer) || (try? store.contact(peer: $0.peer)) != nil }
        guard !answered.isEmpty else { return }
        let answer = Announcement.make(identity: identity, wallMillis: clock.wallMillis).encoded()
        await transmit(answered.map { Datagram(address: $0.address, bytes: answer) })
    }
}
