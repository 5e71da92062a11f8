public import ParleyCore
import ParleyStore

/// Read receipts: reading a chat advances its read marker and tells the authors of the newly read
/// messages, with `read` frames pushed reliably until each author's `readAck` comes back.
extension Node {
    /// Marks `chat` read up to local number `upTo` (the latest message when nil; the marker never
    /// moves back) and sends read receipts for the newly read messages of current members.
    /// Returns how many messages became read.
    @discardableResult
    public func markRead(chat: ChatID, upTo: Int64? = nil) async throws -> Int {
        guard let members = try store.members(of: chat) else { throw NodeError.notFound("no chat \(chat.shortHex)") }
        let newlyRead = try await store.markRead(chat: chat, upTo: upTo)
        let current = Set(members)
        await pushReliably(newlyRead.filter { $0.author != me && current.contains($0.author) }.map { read in
            (key: OutboundKey.read(read.message, to: read.author), frame: Frame.read(chat: chat, ids: [read.message]))
        })
        return newlyRead.count
    }

    /// Records read receipts (the store keeps only those for own messages from current members) and
    /// acknowledges every one, kept or not, so the reader stops resending.
    func receiveReads(_ reads: [(peer: PeerID, chat: ChatID, ids: [MessageID])]) async throws -> [PeerID: [Frame]] {
        var replies: [PeerID: [Frame]] = [:]
        for (peer, chat, ids) in reads {
            try await store.recordReads(chat: chat, messages: ids, reader: peer, ownAuthor: me, atMillis: clock.wallMillis)
            replies[peer, default: []].append(.readAck(ids))
        }
        return replies
    }
}
