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
        // A deletion empties what it removes from the index; this also covers an edit of a deleted
        // message that arrived after the deletion, from a member who had not seen it yet (§13d).
        var deleted = Set<MessageID>()
        for (chat, found) in Dictionary(grouping: hits.map(\.stored), by: \.message.chat) {
            deleted.formUnion(try amendments(of: found, chat: chat).filter { $0.value.deletion != nil }.keys)
        }
        return hits.filter { !deleted.contains($0.stored.message.id) }
    }

    /// Indexes what is left in larger batches than the quiet-time indexer: the caller is waiting.
    func catchUpSearchIndex() async throws {
        let batch = 4 * MessageStore.searchIndexBatch
        while try await store.indexForSearch(limit: batch) == batch {}
    }
}
