import ParleyCrypto
import Logging
import ParleyCore
import ParleyStore

/// Anti-entropy: each node periodically tells every member of each chat what it holds of each
/// author's messages; the member answers with what is missing. Any member can serve any author.
extension Node {
    func syncRequest(chat: ChatID) throws -> [Frame] {
        [.syncRequest(chat: chat, vector: try store.versionVector(chat: chat))]
    }

    /// Messages the requester lacks (its gaps, then its tail), at most `syncBatch`, then `syncEnd`
    /// saying whether more remain.
    func syncReply(chat: ChatID, vector: [PeerID: AuthorHoldings], to peer: PeerID) throws -> [Frame] {
        guard let invite = try store.chat(chat) else { return [.needInvite(chat)] }
        guard invite.isMember(peer) else { return [] }
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
    func syncContinuation(chat: ChatID, with peer: PeerID) throws -> [Frame] {
        let request = try syncRequest(chat: chat)
        guard case let .syncRequest(_, vector)? = request.first, syncProgress.advance(peer: peer, chat: chat, to: vector, now: clock.now) else {
            return []
        }
        return request
    }

    /// Sync with every member that has a session; for the others only a handshake starts, and
    /// the greeting on establishment syncs (so requests never pile up for unreachable peers).
    func syncAllChats() async throws {
        for summary in try store.chats() {
            let request = try syncRequest(chat: summary.invite.id)
            for member in summary.invite.members where member != me {
                if syncProgress.isCatchingUp(peer: member, chat: summary.invite.id, now: clock.now, within: configuration.syncInterval) { continue }
                await send(await engine.datagramsIfConnected(request, to: member, now: clock.now, wallMillis: clock.wallMillis))
            }
        }
    }
}
