internal import Foundation
internal import GRDB
public import ParleyCore

/// Read markers, read receipts and who has what: the bookkeeping behind `parley read`,
/// `parley receipts` and unread counts.
extension MessageStore {
    /// Advances the chat's read marker to local number `upTo` (the latest message when nil, and never
    /// past it); the marker never moves back. The newly read messages of shown kinds by other current
    /// members get read receipts: they are queued (`pendingReadReceipts`) in the same transaction and
    /// returned, to send.
    public func markRead(chat: ChatID, upTo: Int64? = nil, ownAuthor: PeerID) async throws(StoreError) -> ReadProgress {
        let (newlyRead, rows) = try await write("marking chat \(chat.shortHex) read", keepsMemberships: true) {
            db -> (Int, [(Data, Data)]) in
            guard try ChatRecord.exists(db, key: chat.blob) else { return (0, []) }
            let current = try Self.fetchMarker(chat.blob, db)
            let latest =
                try Int64.fetchOne(
                    db.cachedStatement(sql: "SELECT MAX(local_number) FROM messages WHERE chat_id = ?"),
                    arguments: [chat.blob]) ?? 0
            let target = min(upTo ?? latest, latest)
            guard target > current else { return (0, []) }
            try ReadMarkerRecord(chatId: chat.blob, localNumber: target).save(db)
            let sql =
                "SELECT id, author FROM messages WHERE chat_id = ? AND tag IN (\(Self.shownTagPlaceholders))"
                + " AND local_number > ? AND local_number <= ? ORDER BY local_number"
            let read = try Row.fetchAll(
                db.cachedStatement(sql: sql), arguments: [chat.blob] + Self.shownTagArguments + [current, target]
            )
            .map { (id: $0["id"] as Data, author: $0["author"] as Data) }
            let members = Set(
                try Data.fetchAll(
                    db.cachedStatement(sql: "SELECT peer_id FROM chat_members WHERE chat_id = ?"),
                    arguments: [chat.blob]))
            let queue = try db.cachedStatement(
                sql: "INSERT OR IGNORE INTO pending_read_receipts (message_id, author) VALUES (?, ?)")
            let receipts = read.filter { $0.author != ownAuthor.blob && members.contains($0.author) }
            for receipt in receipts { try queue.execute(arguments: [receipt.id, receipt.author]) }
            return (read.count, receipts.map { ($0.id, $0.author) })
        }
        let receipts = try rows.map { id, author throws(StoreError) in
            PendingReadReceipt(
                message: try MessageID.fromBlob(id, "message id"), chat: chat,
                author: try PeerID.fromBlob(author, "message author"))
        }
        return ReadProgress(newlyRead: newlyRead, receipts: receipts)
    }

    /// Read receipts sent but not yet acknowledged: what to push again after a restart.
    public func pendingReadReceipts() throws(StoreError) -> [PendingReadReceipt] {
        let rows = try read("listing pending read receipts") { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT p.message_id, m.chat_id, p.author FROM pending_read_receipts p
                    JOIN messages m ON m.id = p.message_id ORDER BY m.chat_id, m.local_number
                    """
            ).map { ($0[0] as Data, $0[1] as Data, $0[2] as Data) }
        }
        return try rows.map { id, chat, author throws(StoreError) in
            PendingReadReceipt(
                message: try MessageID.fromBlob(id, "message id"), chat: try ChatID.fromBlob(chat, "chat id"),
                author: try PeerID.fromBlob(author, "message author"))
        }
    }

    /// Authors acknowledged our read receipts for these messages (one transaction): they are no longer
    /// pending. An ack from anyone but the message's author changes nothing.
    public func readReceiptsAcknowledged(_ acks: [(author: PeerID, messages: [MessageID])]) async throws(StoreError) {
        guard acks.contains(where: { !$0.messages.isEmpty }) else { return }
        try await write("recording \(acks.count) read receipt ack(s)", keepsMemberships: true) { db in
            let delete = try db.cachedStatement(
                sql: "DELETE FROM pending_read_receipts WHERE message_id = ? AND author = ?")
            for (author, messages) in acks {
                for id in messages { try delete.execute(arguments: [id.blob, author.blob]) }
            }
        }
    }

    /// The chat's highest local number (0: no message stored): the furthest a read marker can go.
    public func latestLocalNumber(chat: ChatID) throws(StoreError) -> Int64 {
        try read("reading the latest message number of chat \(chat.shortHex)") { db in
            try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT MAX(local_number) FROM messages WHERE chat_id = ?"),
                arguments: [chat.blob]) ?? 0
        }
    }

    /// The local number up to which this node's user has read the chat (0: nothing read).
    public func readMarker(chat: ChatID) throws(StoreError) -> Int64 {
        try read("reading the read marker of chat \(chat.shortHex)") { db in try Self.fetchMarker(chat.blob, db) }
    }

    /// Messages of shown kinds after the read marker that `me` did not write. Answered from
    /// `messages_by_tag` (one range per shown tag).
    public func unreadCount(chat: ChatID, me: PeerID) throws(StoreError) -> Int {
        try read("counting unread messages of chat \(chat.shortHex)") { db in
            let marker = try Self.fetchMarker(chat.blob, db)
            return try Int.fetchOne(
                db.cachedStatement(sql: Self.unreadCountSQL),
                arguments: [chat.blob] + Self.shownTagArguments + [marker, me.blob]) ?? 0
        }
    }

    static let unreadCountSQL =
        "SELECT COUNT(*) FROM messages WHERE chat_id = ? AND tag IN (\(shownTagPlaceholders))"
        + " AND local_number > ? AND author != ?"

    /// Records read receipts in one transaction: each says `reader` read these messages of `chat` (at
    /// `atMillis`). Only receipts for `ownAuthor`'s messages in that chat, from a current member other
    /// than the author, count; the rest are ignored, as are repeats (the first time stays). Returns
    /// how many were new.
    @discardableResult
    public func recordReads(
        _ receipts: [(chat: ChatID, messages: [MessageID], reader: PeerID)], ownAuthor: PeerID, atMillis: Int64
    ) async throws(StoreError) -> Int {
        let receipts = receipts.filter { !$0.messages.isEmpty && $0.reader != ownAuthor }
        guard !receipts.isEmpty else { return 0 }
        return try await write("recording \(receipts.count) read receipt(s)", keepsMemberships: true) { db in
            let isMember = try db.cachedStatement(sql: "SELECT 1 FROM chat_members WHERE chat_id = ? AND peer_id = ?")
            let ownInChat = try db.cachedStatement(
                sql: "SELECT 1 FROM messages WHERE id = ? AND chat_id = ? AND author = ?")
            let insert = try db.cachedStatement(
                sql: "INSERT OR IGNORE INTO read_receipts (message_id, reader, read_at_ms) VALUES (?, ?, ?)")
            var recorded = 0
            for (chat, messages, reader) in receipts
            where try Bool.fetchOne(isMember, arguments: [chat.blob, reader.blob]) == true {
                for id in messages
                where try Bool.fetchOne(ownInChat, arguments: [id.blob, chat.blob, ownAuthor.blob]) == true {
                    try insert.execute(arguments: [id.blob, reader.blob, atMillis])
                    recorded += db.changesCount
                }
            }
            return recorded
        }
    }

    /// For every current member of the message's chat other than its author: whether and when it
    /// was delivered to them and read by them. Nil for an unknown message. A read receipt implies
    /// delivery, even if its ack was lost.
    public func receipts(message: MessageID) throws(StoreError) -> [MessageReceipt]? {
        let rows = try read("reading the receipts of message \(message.shortHex)") { db -> [Row]? in
            guard
                let head = try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT chat_id, author, local_number FROM messages WHERE id = ?"),
                    arguments: [message.blob])
            else { return nil }
            let chat: Data = head["chat_id"], author: Data = head["author"], localNumber: Int64 = head["local_number"]
            return try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT c.peer_id AS peer,
                               d.peer_id IS NOT NULL AS delivered, d.delivered_at_ms AS delivered_at,
                               r.read_at_ms AS read_at
                        FROM chat_members c
                        LEFT JOIN deliveries d ON d.chat_id = c.chat_id AND d.local_number = ? AND d.peer_id = c.peer_id
                        LEFT JOIN read_receipts r ON r.message_id = ? AND r.reader = c.peer_id
                        WHERE c.chat_id = ? AND c.peer_id != ?
                        ORDER BY c.peer_id
                        """), arguments: [localNumber, message.blob, chat, author])
        }
        return try rows?.map { row throws(StoreError) in
            let readAt: Int64? = row["read_at"]
            return MessageReceipt(
                member: try PeerID.fromBlob(row["peer"], "chat member"), delivered: row["delivered"] || readAt != nil,
                deliveredAtMillis: row["delivered_at"], readAtMillis: readAt)
        }
    }

    private static func fetchMarker(_ chat: Data, _ db: Database) throws -> Int64 {
        try ReadMarkerRecord.fetchOne(db, key: chat)?.localNumber ?? 0
    }

    static var shownTagPlaceholders: String {
        Array(repeating: "?", count: ContentKind.shownTags.count).joined(separator: ", ")
    }
    static var shownTagArguments: StatementArguments { StatementArguments(ContentKind.shownTags.map(\.rawValue)) }
}
