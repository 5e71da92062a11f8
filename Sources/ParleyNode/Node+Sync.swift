import ParleyCrypto
import Logging
import ParleyCore
import ParleyStore

/// Anti-entropy: each node periodically tells every member of each chat what it holds of each
/// author's messages; the member answers with what is missing. Any member can serve any author.
extension Node {
    func syncRequest(chat: ChatID) throws -> Frame {
        .syncRequest(chat: chat, vector: try store.versionVector(chat: chat))
    }

    /// Messages the requester lacks (its gaps, then its tail), at most `syncBatch`, then `syncEnd`
    /// saying whether more remain.
    func syncReply(chat: ChatID, vector: [PeerID: AuthorHoldings], to peer: PeerID) throws -> [Frame] {
        guard let members = try store.members(of: chat) else { return try asksForInvite(chat) ? [.needInvite(chat)] : [] }
        guard members.contains(peer) else { return [] }
        var budget = configuration.syncBatch
        var frames: [Frame] = []
        for (author, available) in try store.authorsWithMessages(chat: chat).sorted(by: { $0.key < $1.key }) where budget > 0 {
            let wanted = (vector[author] ?? .contiguous(0)).wanted(upTo: available)
            guard !wanted.isEmpty else { continue }
            let missing = try store.messages(chat: chat, author: author, in: wanted, limit: budget)
            budget -= missing.count
            frames += missing.map { .message($0.encoded) }
        }
        return frames + [.syncEnd(chat: chat, more: budget <= 0)]
    }

    /// The follow-up to `syncEnd(more)`: asked again only when the last round moved our vector,
    /// so a peer that keeps saying "more" without delivering cannot keep us busy.
    func syncContinuation(chat: ChatID, with peer: PeerID) throws -> Frame? {
        let vector = try store.versionVector(chat: chat)
        guard syncProgress.advance(peer: peer, chat: chat, to: vector, now: clock.now) else { return nil }
        return .syncRequest(chat: chat, vector: vector)
    }

    /// Sync with every member that has a session; for the others only a handshake starts, and
    /// the greeting on establishment syncs (so requests never pile up for unreachable peers).
    func syncAllChats() async throws {
        for (chat, members) in try joinedMemberships() {
            let request = try syncRequest(chat: chat)
            for member in members where member != me {
                if syncProgress.isCatchingUp(peer: member, chat: chat, now: clock.now, within: configuration.syncInterval) { continue }
                await transmit(await engine.datagramsIfConnected([request], to: member, now: clock.now, wallMillis: clock.wallMillis))
            }
        }
    }

    /// Newly reachable peers: each gets a sync request for every chat it shares with us, which also
    /// flushes its session. Each chat's vector is read once, however many peers it goes to.
    func greet(_ peers: Set<PeerID>) async throws {
        guard !peers.isEmpty else { return }
        var frames: [PeerID: [Frame]] = [:]
        for (chat, members) in try joinedMemberships() {
            let shared = peers.intersection(members)
            guard !shared.isEmpty else { continue }
            let request = try syncRequest(chat: chat)
            for peer in shared { frames[peer, default: []].append(request) }
        }
        for (peer, requests) in frames { await transmit(requests, to: peer) }
        // Read receipts whose retries gave up while the author was away go again now.
        await pushReliably(try store.pendingReadReceipts().filter { peers.contains($0.author) }.map(Self.readReceiptItem))
    }

    /// The members of every chat this node is still in. A chat it was removed from is no longer
    /// synced, greeted or sent heartbeats: its members would not answer.
    func joinedMemberships() throws -> [ChatID: [PeerID]] {
        try store.memberships().filter { $0.value.contains(me) }
    }
}
