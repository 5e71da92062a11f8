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
        if var existing = try ChatEpochRecord.fetchOne(db, key: ["chat_id": chat, "epoch": epoch]) {
            guard let held = existing.messageId, let message, message.lexicographicallyPrecedes(held) else {
                return false
            }
            try ChatEpochMemberRecord.filter { $0.chatId == chat && $0.epoch == epoch }.deleteAll(db)
            existing.messageId = message
            try existing.update(db)
        } else {
            try ChatEpochRecord(chatId: chat, epoch: epoch, messageId: message).insert(db)
        }
        for member in members { try ChatEpochMemberRecord(chatId: chat, epoch: epoch, peerId: member.blob).insert(db) }
        return true
    }

    /// Makes `epoch` the current one if it is newer than the chat's (or the same epoch, re-decided):
    /// `chat_members` then holds its members.
    static func promote(chat: Data, epoch: Int64, setBy message: Data, members: [PeerID], _ db: Database) throws {
        guard var current = try ChatRecord.fetchOne(db, key: chat) else { return }
        let newer =
            epoch > current.epoch
            || (epoch == current.epoch && current.epochMessageId.map { message.lexicographicallyPrecedes($0) } ?? false)
        guard newer else { return }
        current.epoch = epoch
        current.epochMessageId = message
        try current.update(db, columns: [ChatRecord.Columns.epoch, ChatRecord.Columns.epochMessageId])
        try ChatMemberRecord.filter { $0.chatId == chat }.deleteAll(db)
        for member in members { try ChatMemberRecord(chatId: chat, peerId: member.blob).insert(db) }
    }

    static func saveKeys(_ keys: [EpochKey], chat: Data, _ db: Database) throws {
        for entry in keys {
            try entry.key.withRawBytes { raw in
                try ChatKeyRecord(chatId: chat, epoch: Int64(entry.epoch), key: Data(raw)).insert(
                    db, onConflict: .ignore)
            }
        }
    }

    /// Every key this node holds for the chat, by epoch. Read by every query of a keyed chat's messages
    /// (`Keyring`): the statement stays prepared.
    static func keys(chat: Data, _ db: Database) throws -> [UInt32: [ChatKey]] {
        let records = try ChatKeyRecord.fetchAll(
            db.cachedStatement(sql: "SELECT * FROM chat_keys WHERE chat_id = ?"), arguments: [chat])
        var keys: [UInt32: [ChatKey]] = [:]
        for record in records {
            do {
                keys[UInt32(clamping: record.epoch), default: []].append(
                    try ChatKey(rawRepresentation: Array(record.key)))
            } catch {
                throw StoreError.corrupt("a key of chat \(chat.hexPrefix) is invalid: \(error)")
            }
        }
        return keys
    }

    /// The members of one epoch, or nil if this node has not learned that epoch yet.
    static func members(chat: Data, epoch: Int64, _ db: Database) throws -> Set<PeerID>? {
        guard
            try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT 1 FROM chat_epochs WHERE chat_id = ? AND epoch = ?"),
                arguments: [chat, epoch]) == true
        else { return nil }
        let blobs = try Data.fetchAll(
            db.cachedStatement(sql: "SELECT peer_id FROM chat_epoch_members WHERE chat_id = ? AND epoch = ?"),
            arguments: [chat, epoch])
        return Set(try blobs.map { blob throws(StoreError) in try PeerID.fromBlob(blob, "epoch member") })
    }
}
