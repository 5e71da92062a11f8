internal import Foundation
internal import GRDB
import ParleyCore
import ParleyCrypto

/// Opens sealed content as rows are read: each chat's keyed flag and keys are read once per query.
struct Keyring {
    private var chats: [ChatID: [UInt32: [ChatKey]]?] = [:]

    mutating func open(_ stored: StoredMessage, _ db: Database) throws -> StoredMessage {
        let message = stored.message
        guard let keys = try keys(of: message.chat, db), SealedContent.isSealed(message.tag, inKeyedChat: true) else {
            return stored
        }
        let epoch = SealedContent.epoch(of: message.content) ?? 0
        let plain = SealedContent.open(
            message.content, keys: keys[epoch] ?? [], chat: message.chat, author: message.author,
            sequence: message.sequence)
        return StoredMessage(
            message: message.opened(content: plain ?? []), localNumber: stored.localNumber,
            receivedAtMillis: stored.receivedAtMillis,
            state: stored.state, deliveredTo: stored.deliveredTo, isSealed: plain == nil, readBy: stored.readBy,
            recipients: stored.recipients, historyClock: stored.historyClock)
    }

    /// nil for a legacy (unkeyed) chat.
    private mutating func keys(of chat: ChatID, _ db: Database) throws -> [UInt32: [ChatKey]]? {
        if let cached = chats[chat] { return cached }
        let keyed =
            try Bool.fetchOne(db.cachedStatement(sql: "SELECT keyed FROM chats WHERE id = ?"), arguments: [chat.blob])
            ?? false
        let found = keyed ? try Epochs.keys(chat: chat.blob, db) : nil
        chats[chat] = .some(found)
        return found
    }
}
