internal import Foundation
internal import GRDB
import ParleyCore

extension MessageStore {
    /// How many messages one indexing transaction goes through at most: short enough that the writer is
    /// back for the receive and send paths within a few milliseconds.
    public static let searchIndexBatch = 512

    /// Indexes, in one write transaction, up to `limit` of the messages stored since the search index
    /// last caught up, chat by chat in local-number order, and moves each chat's mark past them. Only
    /// plaintext this node can open is indexed; sealed messages it holds no key for, emptied ones and
    /// other tags are passed over. Answers how many messages it went through: 0 when it is caught up.
    ///
    /// Kept off the insert transaction on purpose: the inserts are the throughput bench's bottleneck,
    /// and the node runs this when its writer is quiet (`Node+SearchIndexing`), and before a search.
    public func indexForSearch(limit: Int = MessageStore.searchIndexBatch) async throws(StoreError) -> Int {
        try await write("indexing messages for search", keepsMemberships: true) { db in
            var budget = max(1, limit)
            var keyring = Keyring()
            for (chat, indexedTo) in try Self.searchBacklog(db) where budget > 0 {
                let rows = try Row.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT rowid AS row, local_number, tag, content,
                                CASE WHEN length(content) > 0 AND tag IN (\(SearchText.indexedTagList)) THEN encoded END AS encoded
                            FROM messages WHERE chat_id = ? AND local_number > ? ORDER BY local_number LIMIT ?
                            """), arguments: [chat, indexedTo, budget])
                guard let last = rows.last else { continue }
                budget -= rows.count
                for row in rows {
                    guard let encoded: Data = row["encoded"] else { continue }
                    try Self.index(row: row["row"], encoded: encoded, content: row["content"], &keyring, db)
                }
                try db.cachedStatement(
                    sql: """
                        INSERT INTO search_progress (chat_id, indexed_to) VALUES (?, ?)
                        ON CONFLICT (chat_id) DO UPDATE SET indexed_to = excluded.indexed_to
                        """
                ).execute(arguments: [chat, last["local_number"] as Int64])
            }
            return max(1, limit) - budget
        }
    }

    /// Whether messages are stored that the search index has not gone through yet.
    public func searchIndexIsBehind() throws(StoreError) -> Bool {
        try read("checking the search index") { db in try !Self.searchBacklog(db, first: true).isEmpty }
    }

    /// The highest `messages` rowid: it moves with every insert, so a caller sampling it can tell a
    /// busy store from a quiet one with one index lookup.
    public func newestMessageRow() throws(StoreError) -> Int64 {
        try read("reading the newest message row") { db in
            try Int64.fetchOne(db.cachedStatement(sql: "SELECT MAX(rowid) FROM messages")) ?? 0
        }
    }

    /// The chats with messages past their search mark, and that mark (0 before the first).
    private static func searchBacklog(_ db: Database, first: Bool = false) throws -> [(Data, Int64)] {
        let rows = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT c.id, COALESCE(p.indexed_to, 0) AS indexed_to FROM chats c
                    LEFT JOIN search_progress p ON p.chat_id = c.id
                    WHERE (SELECT MAX(local_number) FROM messages m WHERE m.chat_id = c.id) > COALESCE(p.indexed_to, 0)
                    \(first ? "LIMIT 1" : "")
                    """))
        return rows.map { ($0["id"], $0["indexed_to"]) }
    }

    /// Indexes one message's current content (the `content` column, which a deletion empties, not the
    /// signed encoding), replacing what was indexed for it before.
    private static func index(row: Int64, encoded: Data, content: Data, _ keyring: inout Keyring, _ db: Database)
        throws
    {
        let message: Message
        do { message = try Message(decoding: Array(encoded)) } catch { return }
        let held = StoredMessage(
            message: message.opened(content: Array(content)), localNumber: 0, receivedAtMillis: 0, state: .received,
            deliveredTo: 0)
        let opened = try keyring.open(held, db)
        try db.cachedStatement(sql: "DELETE FROM message_search WHERE rowid = ?").execute(arguments: [row])
        guard !opened.isSealed, let body = SearchText.body(tag: message.tag.rawValue, plaintext: opened.message.content)
        else { return }
        try db.cachedStatement(sql: "INSERT INTO message_search (rowid, body) VALUES (?, ?)").execute(arguments: [
            row, body,
        ])
    }
}
