internal import Foundation
internal import GRDB
public import ParleyCore

/// Muted chats (`muted_chats`): a local choice of this node's user, never sent to anyone.
extension MessageStore {
    /// Mutes or unmutes `chat` (`atMillis`: when, this node's clock). Whether this node holds the
    /// chat: nothing is recorded for one it does not. Muting a muted chat keeps its first time.
    @discardableResult
    public func setMuted(chat: ChatID, muted: Bool, atMillis: Int64) async throws(StoreError) -> Bool {
        try await write("muting chat \(chat.shortHex)", keepsMemberships: true) { db in
            guard try ChatRecord.exists(db, key: chat.blob) else { return false }
            if muted {
                try db.execute(
                    sql: "INSERT OR IGNORE INTO muted_chats (chat_id, muted_at_ms) VALUES (?, ?)",
                    arguments: [chat.blob, atMillis])
            } else {
                try db.execute(sql: "DELETE FROM muted_chats WHERE chat_id = ?", arguments: [chat.blob])
            }
            return true
        }
    }

    /// The chats this node's user muted.
    public func mutedChats() throws(StoreError) -> Set<ChatID> {
        let blobs = try read("listing muted chats") { db in
            try Data.fetchAll(db, sql: "SELECT chat_id FROM muted_chats")
        }
        return Set(try blobs.map { blob throws(StoreError) in try ChatID.fromBlob(blob, "muted chat id") })
    }
}
