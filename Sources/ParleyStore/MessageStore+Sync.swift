internal import Foundation
internal import GRDB
public import ParleyCore

// What anti-entropy sync needs: all answered from `author_heads` or the (chat, author, seq) index.
extension MessageStore {
    /// For each author, the highest sequence number up to which this node holds every message.
    /// Authors with a gap at sequence 1 are left out (nothing contiguous yet).
    public func versionVector(chat: ChatID) throws(StoreError) -> [PeerID: UInt64] {
        try heads(chat: chat, "reading the version vector of chat \(chat.shortHex)") { $0.contiguousSeq }
    }

    /// For each author, the highest sequence number held, gaps or not: lets a responder see who has more.
    public func authorsWithMessages(chat: ChatID) throws(StoreError) -> [PeerID: UInt64] {
        try heads(chat: chat, "reading author heads of chat \(chat.shortHex)") { $0.maxSeq }
    }

    /// The author's messages after `afterSequence`, ascending by sequence, at most `limit`.
    public func messages(chat: ChatID, author: PeerID, afterSequence: UInt64, limit: Int) throws(StoreError) -> [Message] {
        guard limit > 0, afterSequence < UInt64(Int64.max) else { return [] }
        let records = try read("reading messages of \(author.shortHex) in chat \(chat.shortHex)") { db in
            try MessageRecord
                .filter { $0.chatId == chat.blob && $0.author == author.blob && $0.seq > Int64(afterSequence) }
                .order(MessageRecord.Columns.seq)
                .limit(limit)
                .fetchAll(db)
        }
        return try records.map { record throws(StoreError) in try record.decodedMessage() }
    }

    /// The sequence number the author's next message in this chat takes: max + 1, starting at 1.
    public func nextSequence(chat: ChatID, author: PeerID) throws(StoreError) -> UInt64 {
        let max = try read("reading the next sequence of \(author.shortHex)") { db in
            try AuthorHeadRecord.fetchOne(db, key: ["chat_id": chat.blob, "author": author.blob])?.maxSeq
        }
        return UInt64(max ?? 0) + 1
    }

    /// The highest Lamport clock seen in the chat (0 when empty), for the next message's clock.
    public func maxLamport(chat: ChatID) throws(StoreError) -> UInt64 {
        let max = try read("reading the Lamport clock of chat \(chat.shortHex)") { db in
            try Int64.fetchOne(db, sql: "SELECT MAX(lamport) FROM messages WHERE chat_id = ?", arguments: [chat.blob])
        }
        return UInt64(max ?? 0)
    }

    private func heads(
        chat: ChatID, _ context: String, _ value: @escaping (AuthorHeadRecord) -> Int64
    ) throws(StoreError) -> [PeerID: UInt64] {
        let records = try read(context) { db in
            try AuthorHeadRecord.filter { $0.chatId == chat.blob }.fetchAll(db)
        }
        var result: [PeerID: UInt64] = [:]
        for record in records where value(record) > 0 {
            result[try PeerID.fromBlob(record.author, "author")] = UInt64(value(record))
        }
        return result
    }
}
