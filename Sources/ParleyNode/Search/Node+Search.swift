public import ParleyCore
public import ParleyStore

/// Full-text search over this node's own plaintext: nothing is sent, and the text is never logged.
extension Node {
    /// Messages holding every word of `text` (word prefixes, case and diacritics ignored), newest first,
    /// as `MessageStore.search` finds them: an edit as its target, by its latest text only; members'
    /// messages from their fork on are left out, as shown histories leave them out. The index first
    /// catches up with everything stored so far, so a message stored before the call is found.
    public func search(
        text: String, chat: ChatID? = nil, author: PeerID? = nil, tag: Tag? = nil, limit: Int = 25,
        before: MessageID? = nil
    ) async throws -> [SearchHit] {
        try await catchUpSearchIndex()
        let hits = try store.search(
            text: text, chat: chat, author: author, tag: tag, limit: limit, before: before, withoutForked: true)
        // A hit counts only for the text the message shows by the rules of §13d: its latest counted
        // edit's, or its own when it has none; never a deleted message's (an edit of it may arrive
        // after the deletion, from a member who had not seen it yet).
        var amended: [MessageID: MessageAmendments] = [:]
        for (chat, found) in Dictionary(grouping: hits.map(\.stored), by: \.message.chat) {
            amended.merge(try amendments(of: found, chat: chat)) { first, _ in first }
        }
        return hits.compactMap { hit in
            var hit = hit
            hit.amendments = amended[hit.stored.message.id] ?? .none
            guard hit.amendments.deletion == nil else { return nil }
            let shown = hit.amendments.edits.last.map { $0.id == hit.matched } ?? (hit.matched == hit.stored.message.id)
            return shown ? hit : nil
        }
    }

    /// Indexes what is left in larger batches than the quiet-time indexer: the caller is waiting.
    func catchUpSearchIndex() async throws {
        let batch = 4 * MessageStore.searchIndexBatch
        while try await store.indexForSearch(limit: batch) == batch {}
    }
}
