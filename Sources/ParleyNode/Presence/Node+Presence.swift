import Logging
public import ParleyCore
public import ParleyCrypto
import ParleyStore
import Synchronization

/// A current member of a chat with whether it is here now.
public struct MemberPresence: Sendable, Hashable {
    /// The member.
    public let peer: PeerID
    /// Online, or offline with when it was last seen.
    public let status: PresenceTable.Status
    /// The member whose relaying shows it online (no session with it: PROTOCOL.md §12a); nil otherwise.
    public let via: PeerID?

    public init(peer: PeerID, status: PresenceTable.Status, via: PeerID? = nil) {
        self.peer = peer
        self.status = status
        self.via = via
    }
}

/// Presence ("here now") and typing indicators: signed heartbeats to every peer sharing a chat,
/// ephemeral typing frames to a chat's connected members. Neither is ever stored.
extension Node {
    /// The chat's current members; this node is always online to itself.
    public func members(chat: ChatID) throws -> [MemberPresence] {
        guard let members = try store.members(of: chat) else { throw NodeError.notFound("no chat \(chat.shortHex)") }
        let now = clock.now
        return members.map { member in
            guard member != me else { return MemberPresence(peer: member, status: .online) }
            let (status, via) = presenceHub.statusAndRelayer(of: member, now: now)
            return MemberPresence(peer: member, status: status, via: via)
        }
    }

    /// Whether `peer` is here now; this node is always online to itself.
    public func presence(of peer: PeerID) -> PresenceTable.Status {
        peer == me ? .online : presenceHub.status(of: peer, now: clock.now)
    }

    /// Tells the chat's connected members that this node's user is typing (or stopped). Members
    /// without a session miss it: a typing indicator is only worth anything now. Returns how many got it.
    @discardableResult
    public func setTyping(chat: ChatID, active: Bool) async throws -> Int {
        guard let members = try store.members(of: chat) else { throw NodeError.notFound("no chat \(chat.shortHex)") }
        guard members.contains(me) else { throw NodeError.notAMember(chat) }
        let others = members.filter { $0 != me }
        let (datagrams, sent) = await engine.datagramsCountingConnected(
            [.typing(chat: chat, active: active)], toEach: others, now: clock.now, wallMillis: clock.wallMillis)
        await transmit(datagrams)
        return sent
    }

    /// Who else is typing in the chat now.
    public func typing(in chat: ChatID) -> [PeerID] { presenceHub.typing(in: chat, now: clock.now) }

    /// The chat's typing peers now, then after each change (an indicator arrives, stops or expires).
    public func typingUpdates(chat: ChatID) -> AsyncStream<[PeerID]> {
        presenceHub.typingUpdates(chat: chat, now: clock.now)
    }

    /// From the timer loop: a signed `online` beat to every peer sharing a chat. Peers without a
    /// session get a handshake, and the next beat. Returns when the next beat is due: the interval
    /// this beat announced, which grows with the peers (`PresenceSchedule`).
    func heartbeat() async throws -> Duration {
        guard !presenceHub.isLeaving else { return PresenceSchedule.longest }
        return try await beatOnline(onlyTo: nil)
    }

    /// Newly reachable peers sharing a chat are tracked and get a beat now, rather than at the next
    /// heartbeat (up to an interval away): a member that just joined or came back shows online at once.
    func greetWithBeat(_ established: Set<PeerID>) async {
        guard !presenceHub.isLeaving else { return }
        do { _ = try await beatOnline(onlyTo: established) } catch {
            logger.warning(
                "no presence beat for new sessions; the next heartbeat sends it", metadata: ["error": "\(error)"])
        }
    }

    /// Tracks the peers sharing a chat and sends an `online` beat to them (only to those among
    /// `recipients`, when given); returns the interval it announced.
    private func beatOnline(onlyTo recipients: Set<PeerID>?) async throws -> Duration {
        let peers = try peersSharingChats()
        presenceHub.track(peers)
        let interval = PresenceSchedule.interval(peers: peers.count, minimum: configuration.presenceInterval)
        await sendBeat(.online, to: recipients.map { $0.intersection(peers) } ?? peers, interval: interval)
        return interval
    }

    /// From `shutdown()`: a `leaving` beat, so peers show this node offline at once.
    func sayGoodbye() async {
        guard presenceHub.leave() else { return }
        do {
            await sendBeat(
                .leaving, to: try peersSharingChats(),
                interval: PresenceSchedule.interval(peers: 0, minimum: configuration.presenceInterval))
        } catch {
            logger.warning("could not tell peers this node is leaving", metadata: ["error": "\(error)"])
        }
    }

    /// Members of the chats this node is still in (not those it was removed from).
    private func peersSharingChats() throws -> Set<PeerID> {
        var peers = Set(try joinedMemberships().values.joined())
        peers.remove(me)
        return peers
    }

    private func sendBeat(_ status: PresenceBeat.Status, to peers: Set<PeerID>, interval: Duration) async {
        guard !peers.isEmpty else { return }
        let beat = PresenceBeat.make(
            identity: identity, wallMillis: clock.wallMillis, status: status, interval: interval)
        await transmit(
            await engine.datagramsIfConnected(
                [.presence(beat)], toEach: peers, now: clock.now, wallMillis: clock.wallMillis))
    }

    /// A beat that arrived on `peer`'s session: kept if it is that peer's own (the session proves it),
    /// fresh, and the peer shares a chat with us (the tracked set is refreshed by each heartbeat, each
    /// new session and a beat from a peer not tracked yet).
    /// Other peers' beats are ignored without a counter: one may well arrive before its chat's invite.
    func receivePresence(_ beat: PresenceBeat, from peer: PeerID) async throws {
        guard beat.peer == peer else { return try await receiveRelayedPresence(beat, from: peer) }
        do throws(ProtocolRejection) { try beat.checkOnOwnSession(from: peer, wallMillis: clock.wallMillis) } catch {
            await engine.reject(error)
            return
        }
        // Members that asked this node for an introduction to the peer have no session with it.
        let subscribers = rendezvous.withLock { $0.beatSubscribers(of: peer, now: clock.now) }
        if !subscribers.isEmpty {
            await transmit(
                await engine.datagramsIfConnected(
                    [.presence(beat)], toEach: subscribers, now: clock.now, wallMillis: clock.wallMillis))
        }
        // A beat from a peer not tracked yet may come from a member of a chat just joined: the tracked
        // set is refreshed from the memberships (served from memory between writes). Beats from a
        // peer sharing no chat are then ignored, as are beats older than the one held.
        if !presenceHub.isTracked(peer) {
            guard let sharing = try? peersSharingChats(), sharing.contains(peer) else { return }
            presenceHub.track(sharing)
        }
        presenceHub.record(beat, now: clock.now)
    }

    /// A beat of another peer's that `relayer` forwards (PROTOCOL.md §12a): kept only when this node
    /// has no session with that peer (a session brings its own beats), all three share a chat, and
    /// it is fresh, signed by its peer and newer than the one held, so a relayer can neither forge nor
    /// replay one; it touches no address. Otherwise it is ignored without a counter.
    private func receiveRelayedPresence(_ beat: PresenceBeat, from relayer: PeerID) async throws {
        guard beat.peer != me, !(await engine.isLive(beat.peer, now: clock.now)),
            Rendezvous.shareAChat([me, relayer, beat.peer], in: try joinedMemberships())
        else { return }
        do throws(ProtocolRejection) { try beat.verifyRelayed(wallMillis: clock.wallMillis) } catch {
            await engine.reject(error)
            return
        }
        if !presenceHub.isTracked(beat.peer) { presenceHub.track(try peersSharingChats()) }
        // Its age counts from when it was made, not when it arrived: a relayer holding it back cannot
        // keep its peer online longer.
        let age = Duration.milliseconds(max(0, clock.wallMillis &- beat.wallMillis))
        presenceHub.record(beat, via: relayer, now: clock.now - age)
    }

    /// Traffic is presence too (PROTOCOL.md §8.1): `direct` are the peers whose own sessions brought
    /// datagrams in this batch; `relayed` the authors of new messages another member delivered, each
    /// aged from its own time, as a relayed beat is, so a relayer holding it back cannot make its author
    /// look more recent. Without this a member that just joined, or whose next beat is still up to an
    /// interval away, showed "offline, never seen" while its votes were arriving.
    /// Returns the relayed authors this node does not reach (no session heard from lately).
    @discardableResult
    func recordHeard(direct: Set<PeerID>, relayed: [(author: PeerID, timestampMillis: Int64, via: PeerID)]) async
        -> Set<PeerID>
    {
        guard !direct.isEmpty || !relayed.isEmpty else { return [] }
        let (now, wallMillis) = (clock.now, clock.wallMillis)
        // A session brings its peer's own traffic: what others relay of it says less.
        let live = relayed.isEmpty ? [] : await engine.live(among: relayed.map(\.author), now: now)
        var heard = direct.filter { $0 != me }.map { (peer: $0, wallMillis: wallMillis, via: PeerID?.none, at: now) }
        for message in relayed where message.author != me && !live.contains(message.author) {
            let age = Duration.milliseconds(max(0, wallMillis &- message.timestampMillis))
            heard.append((message.author, min(message.timestampMillis, wallMillis), message.via, now - age))
        }
        // Peers not tracked yet may be members of a chat just created or joined: their traffic is kept
        // if they share a chat now, and the tracked set is then re-read. The memberships are served
        // from memory between writes, and a peer sharing none (a contact's traffic, every batch)
        // costs a scan of them, not a new set.
        let untracked = presenceHub.recordHeard(heard)
        let unreached = Set(relayed.map(\.author)).subtracting(live).subtracting([me])
        guard !untracked.isEmpty, let memberships = try? store.memberships(),
            memberships.values.contains(where: { $0.contains(me) && $0.contains(where: untracked.contains) }),
            let sharing = try? peersSharingChats()
        else { return unreached }
        presenceHub.track(sharing)
        _ = presenceHub.recordHeard(heard.filter { untracked.contains($0.peer) })
        return unreached
    }

    /// Typing indicators of one batch, accepted only from current members of their chat.
    func receiveTyping(_ indicators: [(peer: PeerID, chat: ChatID, active: Bool)]) async throws {
        var members: [ChatID: Set<PeerID>] = [:]
        for (peer, chat, active) in indicators {
            if members[chat] == nil { members[chat] = Set(try store.members(of: chat) ?? []) }
            guard members[chat]?.contains(peer) == true else {
                await engine.reject(.notMember)
                continue
            }
            presenceHub.recordTyping(peer, chat: chat, active: active, now: clock.now)
        }
    }
}
