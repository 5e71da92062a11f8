internal import Foundation
internal import GRDB
public import ParleyCore

extension MessageStore {
    /// Pending invites kept at most; past it the oldest is dropped.
    public static let maxPendingInvites = 100
    /// Pending invites kept at most from one creator, so one stranger cannot fill every slot; past it
    /// that creator's oldest is dropped.
    public static let maxPendingInvitesPerCreator = 10
    /// Declined invites remembered at most, so a re-pushed one stays declined.
    static let maxDeclinedInvites = 100

    /// Holds an invite for the user. An invite already held, declined, or for a chat already joined
    /// changes nothing and writes nothing (`.known`); the check is a read, so a re-pushed invite costs
    /// no write transaction.
    public func holdInvite(_ invite: ChatInvite, from sender: PeerID, receivedAtMillis: Int64) async throws(StoreError)
        -> InviteHolding
    {
        if try holdsOrJoined(invite.id) { return .known }
        return try await write("holding an invite to chat \(invite.id.shortHex)") { db in
            if try Self.holdsOrJoined(invite.id, db) { return .known }
            let lastSeq = try Int64.fetchOne(db, PendingInviteRecord.select(max(PendingInviteRecord.Columns.seq))) ?? 0
            try PendingInviteRecord(
                chatId: invite.id.blob, invite: Data(invite.encoded), sender: sender.blob,
                receivedAtMillis: receivedAtMillis,
                state: HeldInvite.State.pending.rawValue, seq: lastSeq + 1, creator: invite.creator.blob
            ).insert(db)
            try db.execute(
                sql: """
                    DELETE FROM pending_invites WHERE chat_id IN (
                        SELECT chat_id FROM pending_invites WHERE state = 'pending' AND creator = ? ORDER BY seq DESC LIMIT -1 OFFSET ?)
                    """, arguments: [invite.creator.blob, Self.maxPendingInvitesPerCreator])
            let droppedOfCreator = db.changesCount
            return .held(
                dropped: droppedOfCreator + (try Self.trim(state: .pending, keeping: Self.maxPendingInvites, db)))
        }
    }

    /// The invite to `chat` this node holds (pending or declined) without having joined it, if any.
    public func heldInvite(_ chat: ChatID) throws(StoreError) -> HeldInvite? {
        let record = try read("reading the held invite to chat \(chat.shortHex)") { db in
            try PendingInviteRecord.fetchOne(db, key: chat.blob)
        }
        guard let record else { return nil }
        return HeldInvite(
            state: HeldInvite.State(rawValue: record.state) ?? .declined,
            creator: try record.creator.map { blob throws(StoreError) in try PeerID.fromBlob(blob, "invite creator") })
    }

    private func holdsOrJoined(_ chat: ChatID) throws(StoreError) -> Bool {
        try read("checking for the invite to chat \(chat.shortHex)") { db in try Self.holdsOrJoined(chat, db) }
    }

    private static func holdsOrJoined(_ chat: ChatID, _ db: Database) throws -> Bool {
        if try ChatRecord.exists(db, key: chat.blob) { return true }
        return try PendingInviteRecord.exists(db, key: chat.blob)
    }

    /// The invites waiting for the user, oldest first.
    public func pendingInvites() throws(StoreError) -> [PendingInvite] {
        try read("listing pending invites") { db in
            try PendingInviteRecord.filter { $0.state == HeldInvite.State.pending.rawValue }.order(
                PendingInviteRecord.Columns.seq
            )
            .fetchAll(db).map(Self.pendingInvite)
        }
    }

    /// The pending invite to `chat`, if one waits (one row decoded, not the whole list).
    public func pendingInvite(_ chat: ChatID) throws(StoreError) -> PendingInvite? {
        try read("reading pending invite \(chat.shortHex)") { db in
            try PendingInviteRecord.filter { $0.chatId == chat.blob && $0.state == HeldInvite.State.pending.rawValue }
                .fetchOne(db).map(Self.pendingInvite)
        }
    }

    private static func pendingInvite(_ record: PendingInviteRecord) throws -> PendingInvite {
        let invite: ChatInvite
        do { invite = try ChatInvite(decoding: Array(record.invite)) } catch {
            throw StoreError.corrupt("a held invite no longer verifies: \(error)")
        }
        return PendingInvite(
            invite: invite, sender: try PeerID.fromBlob(record.sender, "invite sender"),
            receivedAtMillis: record.receivedAtMillis)
    }

    /// Marks a pending invite declined (kept, bounded, so the same invite pushed again stays declined).
    /// Throws if no pending invite has that id.
    public func declineInvite(_ chat: ChatID) async throws(StoreError) {
        try await write("declining the invite to chat \(chat.shortHex)") { db in
            let declined = try PendingInviteRecord.filter {
                $0.chatId == chat.blob && $0.state == HeldInvite.State.pending.rawValue
            }
            .updateAll(db, PendingInviteRecord.Columns.state.set(to: HeldInvite.State.declined.rawValue))
            guard declined == 1 else { throw StoreError.unknownInvite(chat.hex) }
            _ = try Self.trim(state: .declined, keeping: Self.maxDeclinedInvites, db)
        }
    }

    /// Records that `peer` accepted (acknowledged) the invite to `chat`, if it is a member.
    public func recordAcceptances(_ accepted: [(chat: ChatID, peer: PeerID)]) async throws(StoreError) {
        guard !accepted.isEmpty else { return }
        try await write("recording \(accepted.count) accepted invite(s)") { db in
            for (chat, peer) in accepted
            where try ChatMemberRecord.exists(db, key: ["chat_id": chat.blob, "peer_id": peer.blob]) {
                try ChatAcceptanceRecord(chatId: chat.blob, peerId: peer.blob).insert(db, onConflict: .ignore)
            }
        }
    }

    /// The current members of `chat` that have not acknowledged its invite to this node yet.
    public func membersWaiting(chat: ChatID) throws(StoreError) -> [PeerID] {
        try read("reading who has not accepted chat \(chat.shortHex)") { db in
            try Data.fetchAll(
                db,
                sql: """
                    SELECT m.peer_id FROM chat_members m
                    WHERE m.chat_id = ? AND NOT EXISTS (SELECT 1 FROM chat_acceptances a WHERE a.chat_id = m.chat_id AND a.peer_id = m.peer_id)
                    ORDER BY m.peer_id
                    """, arguments: [chat.blob]
            ).map { try PeerID.fromBlob($0, "member") }
        }
    }

    /// Drops the oldest rows (by insertion order) in `state` past `limit`; returns how many.
    private static func trim(state: HeldInvite.State, keeping limit: Int, _ db: Database) throws -> Int {
        try db.execute(
            sql: """
                DELETE FROM pending_invites WHERE chat_id IN (
                    SELECT chat_id FROM pending_invites WHERE state = ? ORDER BY seq DESC LIMIT -1 OFFSET ?)
                """, arguments: [state.rawValue, limit])
        return db.changesCount
    }
}
