import ParleyCrypto
import Logging
import ParleyCore
import ParleyStore

/// Anti-entropy: each node periodically tells every member of each chat how far it has each
/// author's messages; the member answers with what is missing. Any member can serve any author.
extension Node {
    func syncRequest(chat: ChatID) throws -> [Frame] {
        [.syncRequest(chat: chat, vector: try store.versionVector(chat: chat))]
    }

    /// Messages the requester lacks, at most `syncBatch`, then `syncEnd` saying whether more remain.
    func syncReply(chat: ChatID, vector: [PeerID: UInt64], to peer: PeerID) throws -> [Frame] {
        guard let invite = try store.chat(chat) else { return [.needInvite(chat)] }
        guard invite.isMember(peer) else { return [] }
        var budget = configuration.syncBatch
        var frames: [Frame] = []
        for (author, maxSequence) in try store.authorsWithMessages(chat: chat).sorted(by: { $0.key < $1.key }) {
            let known = vector[author] ?? 0
            guard maxSequence > known, budget > 0 else { continue }
            let missing = try store.messages(chat: chat, author: author, afterSequence: known, limit: budget)
            budget -= missing.count
            frames += missing.map { .message($0.encoded) }
        }
        return frames + [.syncEnd(chat: chat, more: budget <= 0)]
    }

    func syncAllChats() async throws {
        for summary in try store.chats() {
            let request = try syncRequest(chat: summary.invite.id)
            for member in summary.invite.members where member != me {
                if await engine.address(of: member) != nil { await send(request, to: member) }
            }
        }
    }
}
