internal import Foundation
internal import GRDB
public import ParleyCore

// What anti-entropy sync needs: all answered from `author_heads` or the (chat, author, seq) index.
// Every statement here is prepared once per connection: in a chat of 100 members a sync reply reads
// once per author, and preparing a statement (GRDB tracks the region each one reads) cost more than
// running it, a tenth of a node's CPU in the 100-member vote.
extension MessageStore {
    /// What this node holds of each author's messages: the sync request's vector.
    /// Gaps are read from the (chat, author, seq) index only for authors that have any.
    /// Kept in memory until the next write (`SyncReadCache`).
    public func versionVector(chat: ChatID) throws(StoreError) -> [PeerID: AuthorHoldings] {
        try syncReads.vector(chat) { () throws(StoreError) in try readVersionVector(chat: chat) }
    }

    private func readVersionVector(chat: ChatID) throws(StoreError) -> [PeerID: AuthorHoldings] {
        try read("reading the version vector of chat \(chat.shortHex)") { db in
            var vector: [PeerID: AuthorHoldings] = [:]
            for head in try AuthorHeadRecord.fetchAll(
                db.cachedStatement(sql: Self.authorHeadsOfChat), arguments: [chat.blob])
            where head.maxSeq > 0 {
                let author = try PeerID.fromBlob(head.author, "author")
                guard head.maxSeq > head.contiguousSeq else {
                    vector[author] = .contiguous(UInt64(head.contiguousSeq))
                    continue
                }
                // Bounded scan: past it, the rest is summarised as "not claimed" and simply resent.
                let heldAbove = try Int64.fetchCursor(
                    db.cachedStatement(
                        sql:
                            "SELECT seq FROM messages WHERE chat_id = ? AND author = ? AND seq > ? ORDER BY seq LIMIT 4096"
                    ),
                    arguments: [chat.blob, head.author, head.contiguousSeq])
                var builder = AuthorHoldingsBuilder(contiguous: UInt64(head.contiguousSeq))
                while let sequence = try heldAbove.next(), builder.add(UInt64(sequence)) {}
                vector[author] = builder.holdings
            }
            return vector
        }
    }

    /// For each author, how far their messages are held without a gap: a progress probe that reads
    /// only `author_heads`, so it stays cheap however many messages are held.
    public func contiguousSequences(chat: ChatID) throws(StoreError) -> [PeerID: UInt64] {
        try authorHeads(chat: chat, \.contiguousSeq)
    }

    /// For each author, the highest sequence number held, gaps or not: lets a responder see who has more.
    /// Kept in memory until the next write (`SyncReadCache`).
    public func authorsWithMessages(chat: ChatID) throws(StoreError) -> [PeerID: UInt64] {
        try syncReads.highest(chat) { () throws(StoreError) in try authorHeads(chat: chat, \.maxSeq) }
    }

    /// One column of the chat's `author_heads`, for the authors where it is above zero.
    private func authorHeads(chat: ChatID, _ column: KeyPath<AuthorHeadRecord, Int64>) throws(StoreError) -> [PeerID:
        UInt64]
    {
        let records = try read("reading author heads of chat \(chat.shortHex)") { db in
            try AuthorHeadRecord.fetchAll(db.cachedStatement(sql: Self.authorHeadsOfChat), arguments: [chat.blob])
        }
        var result: [PeerID: UInt64] = [:]
        for record in records where record[keyPath: column] > 0 {
            result[try PeerID.fromBlob(record.author, "author")] = UInt64(record[keyPath: column])
        }
        return result
    }

    static let authorHeadsOfChat = "SELECT * FROM author_heads WHERE chat_id = ?"

    /// The author's messages whose sequence lies in `ranges` (ascending), in sequence order, at most
    /// `limit`, as their stored encodings; with `withholdingTailStoredWithin`, less those at the very end
    /// of the author's messages in `ranges` (not of a page that `limit` cut short) stored within that
    /// time (wall-clock ms), as a sync reply leaves them to their author's push.
    public func encodings(
        chat: ChatID, author: PeerID, in ranges: [ClosedRange<UInt64>], limit: Int,
        withholdingTailStoredWithin fresh: ClosedRange<Int64>? = nil
    ) throws(StoreError) -> [StoredEncoding] {
        try read("reading messages of \(author.shortHex) in chat \(chat.shortHex)") { db in
            let inRange = try db.cachedStatement(
                sql: """
                    SELECT id, seq, encoded, received_at_ms FROM messages
                    WHERE chat_id = ? AND author = ? AND seq BETWEEN ? AND ? ORDER BY seq LIMIT ?
                    """)
            var found: [(encoding: StoredEncoding, receivedAtMillis: Int64)] = []
            for range in ranges where found.count < limit {
                let rows = try Row.fetchCursor(
                    inRange,
                    arguments: [
                        chat.blob, author.blob, Int64(clamping: range.lowerBound), Int64(clamping: range.upperBound),
                        limit - found.count,
                    ])
                while let row = try rows.next() {
                    let id = try row.withUnsafeData(atIndex: 0) { data throws(StoreError) in
                        try MessageID.fromBlob(data ?? Data(), "message id")
                    }
                    let encoded = try row.withUnsafeData(atIndex: 2) { data in data.map { [UInt8]($0) } ?? [] }
                    guard let isHead = Message.isHead(inEncoding: encoded) else {
                        throw StoreError.corrupt("message \(id.shortHex) does not decode")
                    }
                    found.append(
                        (
                            StoredEncoding(id: id, sequence: UInt64(row[1] as Int64), isHead: isHead, encoded: encoded),
                            row[3]
                        ))
                }
            }
            if let fresh, found.count < limit {
                while let last = found.last, fresh.contains(last.receivedAtMillis) { found.removeLast() }
            }
            return found.map(\.encoding)
        }
    }

    /// For each slot, the `previous` its stored message names (slots with no message, or a message
    /// that links to nothing, are left out): a stored message vouches for the one it names, so a
    /// chained message that arrives after its successor is accepted by it. Slots above the author's
    /// highest stored sequence are answered without a row lookup, from the committed head kept in
    /// memory (`CommittedPositions`, as `storedIDs` does) or else from `author_heads`.
    public func storedPrevious(at slots: [ChainAssembler.Slot]) throws(StoreError) -> [ChainAssembler.Slot: MessageID] {
        guard !slots.isEmpty else { return [:] }
        return try read("reading the chain links of \(slots.count) stored message(s)") { db in
            let highest = try db.cachedStatement(
                sql: "SELECT max_seq FROM author_heads WHERE chat_id = ? AND author = ?")
            let encoded = try db.cachedStatement(
                sql: "SELECT encoded FROM messages WHERE chat_id = ? AND author = ? AND seq = ?")
            var maxima: [ChainAssembler.Slot: Int64] = [:]
            var links: [ChainAssembler.Slot: MessageID] = [:]
            for slot in slots where slot.sequence <= UInt64(Int64.max) {
                let key = ChainAssembler.Slot(chat: slot.chat, author: slot.author, sequence: 0)
                let max =
                    try maxima[key] ?? committedPositions.head(.init(chat: slot.chat, author: slot.author))?.max
                    ?? Int64.fetchOne(highest, arguments: [slot.chat.blob, slot.author.blob]) ?? 0
                maxima[key] = max
                guard Int64(slot.sequence) <= max,
                    let bytes = try Data.fetchOne(
                        encoded, arguments: [slot.chat.blob, slot.author.blob, Int64(slot.sequence)]),
                    let previous = Message.previous(inEncoding: Array(bytes))
                else { continue }
                links[slot] = previous
            }
            return links
        }
    }

    /// The id of the author's message at `sequence` in the chat, if stored.
    public func messageID(chat: ChatID, author: PeerID, sequence: UInt64) throws(StoreError) -> MessageID? {
        let blob = try read("reading message \(sequence) of \(author.shortHex)") { db in
            try Data.fetchOne(
                db.cachedStatement(sql: "SELECT id FROM messages WHERE chat_id = ? AND author = ? AND seq = ?"),
                arguments: [chat.blob, author.blob, Int64(clamping: sequence)])
        }
        return try blob.map { blob throws(StoreError) in try MessageID.fromBlob(blob, "message id") }
    }

    /// The sequence number the author's next message in this chat takes: max + 1, starting at 1.
    public func nextSequence(chat: ChatID, author: PeerID) throws(StoreError) -> UInt64 {
        let max = try read("reading the next sequence of \(author.shortHex)") { db in
            try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT max_seq FROM author_heads WHERE chat_id = ? AND author = ?"),
                arguments: [chat.blob, author.blob])
        }
        return UInt64(max ?? 0) + 1
    }
}
