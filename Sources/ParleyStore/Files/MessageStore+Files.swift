internal import Foundation
internal import GRDB
public import ParleyCore

/// What this node holds of a file's bytes.
public enum FileHolding: String, Sendable, Hashable {
    /// Being fetched: some chunks are on disk.
    case partial
    /// Every chunk is on disk and checked: this node serves it.
    case held
}

/// A file this node holds bytes of (`files`): only its own bookkeeping, never sent.
public struct HeldFile: Sendable, Hashable {
    public let id: MessageID
    public let chat: ChatID
    public let size: Int64
    public let holding: FileHolding
    /// Sent from this node: never evicted by the quota.
    public let sentHere: Bool
    public let heldAtMillis: Int64?
}

extension MessageStore {
    /// Records that this node holds the file's bytes, whole or in part; a later call replaces the
    /// holding (`heldAtMillis` is when it became whole).
    public func recordFile(
        id: MessageID, chat: ChatID, size: Int64, holding: FileHolding, sentHere: Bool, heldAtMillis: Int64?
    ) async throws(StoreError) {
        try await write("recording file \(id.shortHex)", keepsMemberships: true) { db in
            try db.execute(
                sql: """
                    INSERT INTO files (message_id, chat_id, size, state, sent_here, held_at_ms) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (message_id) DO UPDATE SET state = excluded.state, held_at_ms = excluded.held_at_ms
                    """,
                arguments: [id.blob, chat.blob, size, holding.rawValue, sentHere, heldAtMillis])
        }
    }

    /// Forgets the file's bytes (evicted or removed): its manifest stays.
    public func forgetFile(_ id: MessageID) async throws(StoreError) {
        try await write("forgetting file \(id.shortHex)", keepsMemberships: true) { db in
            try db.execute(sql: "DELETE FROM files WHERE message_id = ?", arguments: [id.blob])
        }
    }

    public func heldFile(_ id: MessageID) throws(StoreError) -> HeldFile? {
        try heldFiles(where: "message_id = ?", [id.blob]).first
    }

    /// The files of `chat` this node holds bytes of.
    public func heldFiles(chat: ChatID) throws(StoreError) -> [HeldFile] {
        try heldFiles(where: "chat_id = ?", [chat.blob])
    }

    /// Every file this node holds bytes of, fetched ones completed longest ago first: the quota's
    /// eviction order (files sent from here last, as they may be the only copy).
    public func allHeldFiles() throws(StoreError) -> [HeldFile] {
        try heldFiles(where: "1", [], order: "sent_here, held_at_ms IS NULL, held_at_ms")
    }

    private func heldFiles(where condition: String, _ arguments: StatementArguments, order: String = "message_id")
        throws(StoreError) -> [HeldFile]
    {
        let rows = try read("reading held files") { db in
            try Row.fetchAll(
                db,
                sql:
                    "SELECT message_id, chat_id, size, state, sent_here, held_at_ms FROM files WHERE \(condition) ORDER BY \(order)",
                arguments: arguments)
        }
        return try rows.map { row throws(StoreError) in
            let state: String = row["state"]
            guard let holding = FileHolding(rawValue: state) else { throw .corrupt("file state '\(state)'") }
            return HeldFile(
                id: try MessageID.fromBlob(row["message_id"], "file id"),
                chat: try ChatID.fromBlob(row["chat_id"], "file chat"), size: row["size"], holding: holding,
                sentHere: row["sent_here"], heldAtMillis: row["held_at_ms"])
        }
    }
}
