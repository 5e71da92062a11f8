internal import Foundation
internal import GRDB
public import ParleyCore
public import ParleyCrypto

/// Who is in a chat now, and the keys this node holds for it.
public struct ChatMembership: Sendable {
    public let chat: ChatID
    public let kind: ChatKind
    public let creator: PeerID
    /// Whether content is sealed with chat keys (every chat but legacy ones).
    public let isKeyed: Bool
    public let epoch: UInt32
    /// Sorted.
    public let members: [PeerID]
    /// The current epoch's key, which new messages are sealed with; nil in a legacy chat, or when this
    /// node holds none (it is not a member of the current epoch).
    public let sealingKey: EpochKey?
}

extension MessageStore {
    /// The chat's current kind, creator, epoch and members, or nil if it is not joined.
    public func membership(of chat: ChatID) throws(StoreError) -> ChatMembership? {
        let (cached, generation) = membershipCache.lookup(chat)
        if let cached { return cached }
        let fresh = try readMembership(of: chat)
        if let fresh { membershipCache.keep(fresh, readAt: generation) }
        return fresh
    }

    private func readMembership(of chat: ChatID) throws(StoreError) -> ChatMembership? {
        try read("reading the membership of chat \(chat.shortHex)") { db in
            guard
                let row = try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT creator, kind, keyed, epoch FROM chats WHERE id = ?"),
                    arguments: [chat.blob])
            else { return nil }
            let members = try Data.fetchAll(
                db.cachedStatement(sql: "SELECT peer_id FROM chat_members WHERE chat_id = ? ORDER BY peer_id"),
                arguments: [chat.blob])
            let kind: String = row["kind"], epoch: Int64 = row["epoch"], keyed: Bool = row["keyed"]
            guard let chatKind = ChatKind(rawValue: kind) else {
                throw StoreError.corrupt("chat \(chat.shortHex) has kind '\(kind)'")
            }
            return ChatMembership(
                chat: chat, kind: chatKind, creator: try PeerID.fromBlob(row["creator"], "chat creator"),
                isKeyed: keyed,
                epoch: UInt32(clamping: epoch),
                members: try members.map { blob throws(StoreError) in try PeerID.fromBlob(blob, "chat member") },
                sealingKey: keyed ? try Self.key(of: chat, epoch: UInt32(clamping: epoch), db) : nil)
        }
    }

    /// Every key this node holds for the chat, oldest epoch first.
    public func chatKeys(_ chat: ChatID) throws(StoreError) -> [EpochKey] {
        try read("reading the keys of chat \(chat.shortHex)") { db in
            try Epochs.keys(chat: chat.blob, db).sorted { $0.key < $1.key }.flatMap { epoch, keys in
                keys.map { EpochKey(epoch: epoch, key: $0) }
            }
        }
    }

    /// The current epoch's key, which this node may not hold (see `ChatMembership.sealingKey`).
    private static func key(of chat: ChatID, epoch: UInt32, _ db: Database) throws -> EpochKey? {
        try Epochs.keys(chat: chat.blob, db)[epoch]?.first.map { EpochKey(epoch: epoch, key: $0) }
    }
}

extension MessageStore {
    /// The members of the epoch a stored message was sealed for (in a legacy chat, its invite's), or
    /// nil if the message is not stored: who was in the chat at the message's place in history. The
    /// epoch is in the signed content and its members are set by the change that wins it, so every
    /// member holding the message gets the same set, whatever changes it received since.
    public func membersWhenSent(_ message: MessageID) throws(StoreError) -> Set<PeerID>? {
        try read("reading the members when message \(message.shortHex) was sent") { db in
            guard
                let row = try Row.fetchOne(
                    db.cachedStatement(
                        sql:
                            "SELECT m.chat_id, m.tag, m.content, c.keyed FROM messages m JOIN chats c ON c.id = m.chat_id WHERE m.id = ?"
                    ),
                    arguments: [message.blob])
            else { return nil }
            let chat: Data = row["chat_id"], content: Data = row["content"], keyed: Bool = row["keyed"],
                tag: String = row["tag"]
            let sealed = keyed && tag != Tag.membership.rawValue
            let epoch = sealed ? SealedContent.epoch(of: Array(content)) ?? 0 : 0
            return try Epochs.members(chat: chat, epoch: Int64(epoch), db)
        }
    }
}
