internal import Foundation
internal import GRDB
import ParleyCore
import ParleyCrypto

/// The rows behind membership epochs and chat keys, shared by the chat, insert and read paths.
enum Epochs {
    /// Records who the members of `epoch` are; a second change for the same epoch replaces the first
    /// only if its message id is lower, so every member ends with the same list whatever the order.
    /// Returns whether the row was written.
    @discardableResult
    static func save(chat: Data, epoch: Int64, setBy message: Data?, members: [PeerID], _ db: Database) throws -> Bool {
        let existing = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT message_id FROM chat_epochs WHERE chat_id = ? AND epoch = ?"), arguments: [chat, epoch])
        if let existing {
            let held: Data? = existing["message_id"]
            guard let held, let message, message.lexicographicallyPrecedes(held) else { return false }
            try db.cachedStatement(sql: "DELETE FROM chat_epoch_members WHERE chat_id = ? AND epoch = ?").execute(arguments: [chat, epoch])
            try db.cachedStatement(sql: "UPDATE chat_epochs SET message_id = ? WHERE chat_id = ? AND epoch = ?")
                .execute(arguments: [message, chat, epoch])
        } else {
            try db.cachedStatement(sql: "INSERT INTO chat_epochs (chat_id, epoch, message_id) VALUES (?, ?, ?)")
                .execute(arguments: [chat, epoch, message])
        }
        let insert = try db.cachedStatement(sql: "INSERT INTO chat_epoch_members (chat_id, epoch, peer_id) VALUES (?, ?, ?)")
        for member in members { try insert.execute(arguments: [chat, epoch, member.blob]) }
        return true
    }

    /// Makes `epoch` the current one if it is newer than the chat's (or the same epoch, re-decided):
    /// `chat_members` then holds its members.
    static func promote(chat: Data, epoch: Int64, setBy message: Data, members: [PeerID], _ db: Database) throws {
        guard let current = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT epoch, epoch_message_id FROM chats WHERE id = ?"), arguments: [chat]) else { return }
        let currentEpoch: Int64 = current["epoch"]
        let currentMessage: Data? = current["epoch_message_id"]
        let newer = epoch > currentEpoch
            || (epoch == currentEpoch && currentMessage.map { message.lexicographicallyPrecedes($0) } ?? false)
        guard newer else { return }
        try db.cachedStatement(sql: "UPDATE chats SET epoch = ?, epoch_message_id = ? WHERE id = ?").execute(arguments: [epoch, message, chat])
        try db.cachedStatement(sql: "DELETE FROM chat_members WHERE chat_id = ?").execute(arguments: [chat])
        let insert = try db.cachedStatement(sql: "INSERT INTO chat_members (chat_id, peer_id) VALUES (?, ?)")
        for member in members { try insert.execute(arguments: [chat, member.blob]) }
    }

    static func saveKeys(_ keys: [EpochKey], chat: Data, _ db: Database) throws {
        let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO chat_keys (chat_id, epoch, key) VALUES (?, ?, ?)")
        for entry in keys {
            try entry.key.withRawBytes { raw in try insert.execute(arguments: [chat, Int64(entry.epoch), Data(raw)]) }
        }
    }

    /// Every key this node holds for the chat, by epoch.
    static func keys(chat: Data, _ db: Database) throws -> [UInt32: [ChatKey]] {
        let rows = try Row.fetchAll(db.cachedStatement(sql: "SELECT epoch, key FROM chat_keys WHERE chat_id = ?"), arguments: [chat])
        var keys: [UInt32: [ChatKey]] = [:]
        for row in rows {
            let epoch: Int64 = row["epoch"], raw: Data = row["key"]
            do { keys[UInt32(clamping: epoch), default: []].append(try ChatKey(rawRepresentation: Array(raw))) } catch {
                throw StoreError.corrupt("a key of chat \(chat.hexPrefix) is invalid: \(error)")
            }
        }
        return keys
    }

    /// The members of one epoch, or nil if this node has not learned that epoch yet.
    static func members(chat: Data, epoch: Int64, _ db: Database) throws -> Set<PeerID>? {
        guard try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT 1 FROM chat_epochs WHERE chat_id = ? AND epoch = ?"), arguments: [chat, epoch]) == true
        else { return nil }
        let blobs = try Data.fetchAll(
            db.cachedStatement(sql: "SELECT peer_id FROM chat_epoch_members WHERE chat_id = ? AND epoch = ?"), arguments: [chat, epoch])
        return Set(try blobs.map { blob throws(StoreError) in try PeerID.fromBlob(blob, "epoch member") })
    }
}
