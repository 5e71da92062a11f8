import ParleyCrypto
import Logging
import ParleyCore
import ParleyStore
import Synchronization

/// Anti-entropy: each node periodically tells every member of each chat what it holds of each
/// author's messages; the member answers with what is missing. Any member can serve any author.
extension Node {
    /// A sync request for `chat` on its way to `peers`, with `vector` (the stored one when nil). Every
    /// request is made here, so each is recorded as asked: a `nothingMissing` answer vouches for its vector.
    ///
    /// Each request travels with the chain tops (`ChainTops`): the ids held at each author's highest
    /// sequence and the forks proven here, which sequences alone cannot compare (§10).
    func syncRequest(chat: ChatID, vector: [PeerID: AuthorHoldings]? = nil, to peers: some Sequence<PeerID>) throws
        -> [Frame]
    {
        let vector = try vector ?? store.versionVector(chat: chat)
        for peer in peers { syncProgress.asked(vector, peer: peer, chat: chat) }
        return [.syncRequest(chat: chat, vector: vector), .chainTops(chat: chat, try store.chainTops(chat: chat))]
    }

    /// Messages the requester lacks (its gaps, then its tail), at most `syncBatch`, then `syncEnd`
    /// saying whether more remain. Each author's run ends at a signed head where the store holds one,
    /// so the requester can accept every message of it (`extendedToHead`).
    ///
    /// The end of an author's messages stored here less than `syncFreshness` ago is withheld from a
    /// member that asked before in this session, when the author is this node or a member it sees
    /// online: the author is still pushing those messages and retransmits until the member acks, and
    /// sending them again only doubles the work of both. (In a vote of 100 members on one machine,
    /// every vote went out twice more this way.) A member's first request in a session (it just joined,
    /// or restarted) gets everything, and so do messages of an author gone offline. Under load the
    /// tail is longer, as the retransmits' patience is (`ReliableQueue.takeDue`): 4 × how long this
    /// node's own input waits, when that is more than `syncFreshness`, up to `maxSyncFreshness`.
    /// Otherwise a vote that ran late on a slow machine went out again by sync once it was 3 s old,
    /// and the extra work made the rest later still.
    func syncReply(chat: ChatID, vector: [PeerID: AuthorHoldings], to peer: PeerID) throws -> [Frame] {
        guard let members = try store.members(of: chat) else {
            return try asksForInvite(chat) ? [.needInvite(chat)] : []
        }
        guard members.contains(peer) else { return [] }
        let askedBefore = syncProgress.received(vector, from: peer, chat: chat)
        let now = clock.now
        let isPushing = { (author: PeerID) in
            askedBefore
                && (author == self.me
                    || members.contains(author) && self.presenceHub.status(of: author, now: now) == .online)
        }
        let wallMillis = clock.wallMillis
        let underLoad = min(
            transport.inbound.queueDelay * ReliableQueue<OutboundKey, Frame>.loadFactor, Self.maxSyncFreshness)
        let freshness = max(configuration.syncFreshness, underLoad).millis
        let fresh = freshness > 0 ? (wallMillis - freshness + 1)...wallMillis : nil
        var budget = configuration.syncBatch
        var frames: [Frame] = []
        for (author, available) in try store.authorsWithMessages(chat: chat).sorted(by: { $0.key < $1.key })
        where budget > 0 {
            let wanted = (vector[author] ?? .contiguous(0)).wanted(upTo: available)
            guard !wanted.isEmpty else { continue }
            let run = try store.encodings(
                chat: chat, author: author, in: wanted, limit: budget,
                withholdingTailStoredWithin: isPushing(author) ? fresh : nil)
            // A run left ending on a chained message is extended to its head below, withheld messages included.
            let missing = try extendedToHead(run, chat: chat, author: author, upTo: available)
            if author != me { relayed.withLock { relayed in for message in missing { relayed.insert(message.id) } } }
            budget -= missing.count
            frames += missing.map { .message($0.encoded) }
        }
        // "Nothing missing" only when we hold exactly the requester's vector: it records it as ours.
        let holdsExactly = frames.isEmpty ? try store.versionVector(chat: chat) == vector : false
        syncMessagesSent.add(frames.count, ordering: .relaxed)
        let end: SyncEnd = holdsExactly ? .nothingMissing : budget <= 0 ? .more : .done
        return frames + [.syncEnd(chat: chat, end)]
    }

    /// A run of an author's messages, followed by the author's messages after it up to the first head
    /// (at most one batch more): a chained message is accepted only once a head vouches for it. When the
    /// requester already holds some of those, they are sent again and dropped as known.
    private func extendedToHead(_ run: [StoredEncoding], chat: ChatID, author: PeerID, upTo available: UInt64) throws
        -> [StoredEncoding]
    {
        guard let last = run.last, !last.isHead, last.sequence < available else { return run }
        let following = try store.encodings(
            chat: chat, author: author, in: [(last.sequence + 1)...available], limit: Self.maxHeadDistance)
        guard let head = following.firstIndex(where: \.isHead) else { return run + following }
        return run + following[...head]
    }

    /// The longest a fresh tail is left to its author under load: past it, sync repairs as usual.
    static let maxSyncFreshness: Duration = .seconds(30)

    /// How far a chained message may be from the head that vouches for it: the send path's largest batch.
    static let maxHeadDistance = 256

    /// Follows up each `syncEnd(more)` of a batch as soon as the batch is verified, before it is stored:
    /// the vector already counts its messages and those of the batch still being stored (`storing`), as
    /// they will be once both commit. The peer then reads and sends its next batch while this one is
    /// stored, instead of after. A message the store then refuses is simply asked for again later.
    /// Only a member's `more`, in a chat this node is a member of, is followed up, once per batch, and
    /// only members' messages are counted: anyone's verified heads must not grow the vector.
    func continueSyncs(after prepared: PreparedBatch, besides storing: PreparedBatch?) async {
        let asks = prepared.plan.syncFollowUps
        guard !asks.isEmpty else { return }
        // This answers the requests in flight; the follow-up below is a new one.
        for (chat, peers) in asks {
            for peer in peers { syncProgress.answered(.more, by: peer, chat: chat) }
        }
        let arriving = ((storing?.messages.verified.messages ?? []) + prepared.messages.verified.messages).map(
            \.message)
        var requests: [PeerID: [Frame]] = [:]
        for (chat, peers) in asks {
            do {
                guard let members = try store.members(of: chat).map(Set.init), members.contains(me) else { continue }
                let vector = Self.anticipated(
                    try store.versionVector(chat: chat), chat: chat, adding: arriving, members: members)
                for peer in peers where members.contains(peer) {
                    if let request = try syncContinuation(chat: chat, vector: vector, with: peer) {
                        requests[peer, default: []] += request
                    }
                }
            } catch {
                logger.warning(
                    "could not follow up a sync reply; the next round asks again", metadata: ["error": "\(error)"])
            }
        }
        await transmit(requests)
    }

    /// `vector` (what is stored of `chat`) with the messages of `arriving` that belong to the chat and
    /// were written by its `members`: what will be stored once they commit, or less.
    static func anticipated(
        _ vector: [PeerID: AuthorHoldings], chat: ChatID, adding arriving: [Message], members: Set<PeerID>
    ) -> [PeerID: AuthorHoldings] {
        var sequences: [PeerID: [UInt64]] = [:]
        for message in arriving where message.chat == chat && members.contains(message.author) && message.sequence > 0 {
            sequences[message.author, default: []].append(message.sequence)
        }
        var result = vector
        for (author, added) in sequences { result[author] = (vector[author] ?? .contiguous(0)).adding(added) }
        return result
    }

    /// The follow-up to `syncEnd(more)`: asked again only when the last round moved our vector,
    /// so a peer that keeps saying "more" without delivering cannot keep us busy.
    private func syncContinuation(chat: ChatID, vector: [PeerID: AuthorHoldings], with peer: PeerID) throws -> [Frame]?
    {
        guard syncProgress.advance(peer: peer, chat: chat, to: vector, now: clock.now) else { return nil }
        return try syncRequest(chat: chat, vector: vector, to: [peer])
    }

    /// Sync with every member that has a session and may hold something we lack (`SyncProgress.holds`);
    /// for the others only a handshake starts, and the greeting on establishment syncs (so requests
    /// never pile up for unreachable peers).
    func syncAllChats() async throws {
        let round = syncRounds.add(1, ordering: .relaxed).newValue
        let memberships = try joinedMemberships()
        await askIntroductions(memberships)
        for (chat, members) in memberships {
            let ours = try store.versionVector(chat: chat)
            let due = members.filter { member in
                member != me && !syncProgress.holds(ours, peer: member, chat: chat) // nothing to exchange
                    && !syncProgress.isCatchingUp(
                        peer: member, chat: chat, now: clock.now, within: configuration.syncInterval)
            }
            let asked = Self.inTurn(due.sorted(), round: round, fanout: configuration.syncFanout)
            guard !asked.isEmpty else { continue }
            let request = try syncRequest(chat: chat, vector: ours, to: asked)
            await transmit(
                await engine.datagramsIfConnected(request, toEach: asked, now: clock.now, wallMillis: clock.wallMillis))
        }
    }

    /// At most `fanout` of `members` (in a fixed order), moving on by `fanout` each round, so each is
    /// asked once every `members / fanout` rounds.
    static func inTurn(_ members: [PeerID], round: Int, fanout: Int) -> [PeerID] {
        guard members.count > fanout, fanout > 0 else { return members }
        let start = (round &* fanout) % members.count
        return (0..<fanout).map { members[(start + $0) % members.count] }
    }

    /// Newly reachable peers: each gets a sync request for every chat it shares with us, which also
    /// flushes its session, and a presence beat. Each chat's vector is read once, however many peers it goes to.
    func greet(_ peers: Set<PeerID>) async throws {
        guard !peers.isEmpty else { return }
        for peer in peers { syncProgress.forgetReceived(from: peer) } // a new session: it may have restarted with less
        var frames: [PeerID: [Frame]] = [:]
        for (chat, members) in try joinedMemberships() {
            let shared = peers.intersection(members)
            guard !shared.isEmpty else { continue }
            let request = try syncRequest(chat: chat, to: shared)
            for peer in shared { frames[peer, default: []] += request }
        }
        await transmit(frames)
        // Read receipts whose retries gave up while the author was away go again now.
        await pushReliably(
            try store.pendingReadReceipts().filter { peers.contains($0.author) }.map(Self.readReceiptItem))
        await greetWithBeat(peers)
    }

    /// The members of every chat this node is still in. A chat it was removed from is no longer
    /// synced, greeted or sent heartbeats: its members would not answer.
    func joinedMemberships() throws -> [ChatID: [PeerID]] {
        try store.memberships().filter { $0.value.contains(me) }
    }
}
