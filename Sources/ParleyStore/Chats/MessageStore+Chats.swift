internal import Foundation
internal import GRDB
public import ParleyCore

extension MessageStore {
    /// Stores a joined chat, its first members (epoch 0) and this node's epoch-0 key, if it has one.
    /// Returns false, changing nothing, if it was already stored.
    public func saveChat(_ invite: ChatInvite, key: EpochKey? = nil, joinedAtMillis: Int64) async throws(StoreError)
        -> Bool
    {
        try await write("saving chat \(invite.id.shortHex)") { db in
            if try ChatRecord.exists(db, key: invite.id.blob) { return false }
            try ChatRecord(
                id: invite.id.blob, creator: invite.creator.blob, title: invite.title,
                createdAtMillis: invite.createdAtMillis, invite: Data(invite.encoded), joinedAtMillis: joinedAtMillis,
                kind: invite.kind.rawValue, keyed: invite.isKeyed, epoch: 0, epochMessageId: nil
            ).insert(db)
            for member in invite.members {
                try ChatMemberRecord(chatId: invite.id.blob, peerId: member.blob).insert(db)
            }
            // Joined now: an invite held for the user is answered, and this node needs no ack from itself.
            try PendingInviteRecord.deleteOne(db, key: invite.id.blob)
            try ChatAcceptanceRecord(chatId: invite.id.blob, peerId: invite.creator.blob).insert(db)
            try Epochs.save(chat: invite.id.blob, epoch: 0, setBy: nil, members: invite.members, db)
            if let key { try Epochs.saveKeys([key], chat: invite.id.blob, db) }
            return true
        }
    }

    /// The invite of a joined chat, re-verified from its signed encoding.
    public func chat(_ id: ChatID) throws(StoreError) -> ChatInvite? {
        let record = try read("reading chat \(id.shortHex)") { db in try ChatRecord.fetchOne(db, key: id.blob) }
        return try record.map { record throws(StoreError) in try Self.invite(record) }
    }

    /// Every joined chat with its message count and latest shown message, sorted by title then id.
    public func chats() throws(StoreError) -> [ChatSummary] {
        try read("listing chats") { db in
            let records = try ChatRecord.order(ChatRecord.Columns.title, ChatRecord.Columns.id).fetchAll(db)
            return try records.map { record in
                let count = try MessageRecord.filter { $0.chatId == record.id }.fetchCount(db)
                // The latest message a person would see (not a vote or a reaction), latest in history order.
                let last = try Self.fetchStored(
                    db,
                    """
                    WHERE m.chat_id = ? AND m.tag IN (\(Self.shownTagPlaceholders)) AND \(Self.notForked)
                    ORDER BY \(Self.historyClock(of: "m")) DESC, m.author DESC, m.seq DESC LIMIT 1
                    """,
                    [record.id] + Self.shownTagArguments
                ).first
                let members = try Data.fetchAll(
                    db.cachedStatement(sql: "SELECT peer_id FROM chat_members WHERE chat_id = ? ORDER BY peer_id"),
                    arguments: [record.id])
                return ChatSummary(
                    invite: try Self.invite(record),
                    members: try members.map { blob throws(StoreError) in try PeerID.fromBlob(blob, "chat member") },
                    epoch: UInt32(clamping: record.epoch), messageCount: count, lastMessage: last,
                    joinedAtMillis: record.joinedAtMillis)
            }
        }
    }

    /// The chat whose id starts with `prefix` (hex, any case, any length).
    public func resolveChat(prefix: String) throws(StoreError) -> ChatID {
        let range = try IDPrefix(prefix)
        let matches = try read("resolving chat prefix '\(prefix)'") { db in
            try range.matches(db, table: ChatRecord.databaseTableName)
        }
        return try range.unique(matches, kind: "chat")
    }

    static func invite(_ record: ChatRecord) throws(StoreError) -> ChatInvite {
        do { return try ChatInvite(decoding: Array(record.invite)) } catch {
            throw .corrupt("chat \(record.id.hexPrefix) has an invalid invite: \(error)")
        }
    }
}

extension MessageStore {
    /// The members of a joined chat, or nil if it is not joined: the send path's check, without
    /// re-verifying the invite's signature on every message (it was verified when the chat was saved).
    public func members(of chat: ChatID) throws(StoreError) -> [PeerID]? {
        try memberships()[chat]
    }

    /// Every joined chat's members, from `chat_members` alone: what the sync timers need.
    /// Served from memory between writes that may change a membership: presence and sync timers ask
    /// every few seconds, and an idle node must not read the store for it.
    public func memberships() throws(StoreError) -> [ChatID: [PeerID]] {
        let (cached, generation) = membershipCache.lookupAll()
        if let cached { return cached }
        let fresh = try readMemberships()
        membershipCache.keepAll(fresh, readAt: generation)
        return fresh
    }

    private func readMemberships() throws(StoreError) -> [ChatID: [PeerID]] {
        let rows = try read("reading chat members") { db in
            try Row.fetchAll(
                db.cachedStatement(sql: "SELECT chat_id, peer_id FROM chat_members ORDER BY chat_id, peer_id"))
        }
        var result: [ChatID: [PeerID]] = [:]
        for row in rows {
            let chat: Data = row["chat_id"], peer: Data = row["peer_id"]
            result[try ChatID.fromBlob(chat, "chat id"), default: []].append(try PeerID.fromBlob(peer, "chat member"))
        }
        return result
    }
}
