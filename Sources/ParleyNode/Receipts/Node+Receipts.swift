public import ParleyCore
import ParleyStore

/// Read receipts: reading a chat advances its read marker and tells the authors of the newly read
/// messages, with `read` frames pushed reliably until each author's `readAck` comes back. Receipts
/// not yet acknowledged are kept in the store and pushed again after a restart.
extension Node {
    /// Marks `chat` read up to local number `upTo` (the latest message when nil; the marker never
    /// moves back) and sends read receipts for the newly read messages of current members.
    /// Returns how many messages became read.
    @discardableResult
    public func markRead(chat: ChatID, upTo: Int64? = nil) async throws -> Int {
        guard try store.members(of: chat) != nil else { throw NodeError.notFound("no chat \(chat.shortHex)") }
        let progress = try await store.markRead(chat: chat, upTo: upTo, ownAuthor: me)
        await pushReliably(progress.receipts.map(Self.readReceiptItem))
        return progress.newlyRead
    }

    static func readReceiptItem(_ receipt: PendingReadReceipt) -> (key: OutboundKey, frame: Frame) {
        (.read(receipt.message, to: receipt.author), .read(chat: receipt.chat, ids: [receipt.message]))
    }

    /// Records read receipts (the store keeps only those for own messages from current members) and
    /// acknowledges every one, kept or not, so the reader stops resending.
    func receiveReads(_ reads: [(peer: PeerID, chat: ChatID, ids: [MessageID])]) async throws -> [PeerID: [Frame]] {
        guard !reads.isEmpty else { return [:] }
        try await store.recordReads(reads.map { ($0.chat, $0.ids, $0.peer) }, ownAuthor: me, atMillis: clock.wallMillis)
        var replies: [PeerID: [Frame]] = [:]
        for (peer, _, ids) in reads { replies[peer, default: []].append(.readAck(ids)) }
        return replies
    }
}
