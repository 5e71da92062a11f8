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
    public func holdInvite(_ invite: ChatInvite, from sender: PeerID, receivedAtMillis: Int64) async throws(StoreError) -> InviteHolding {
        if try holdsOrJoined(invite.id) { return .known }
        return try await write("holding an invite to chat \(invite.id.shortHex)") { db in
            if try Self.holdsOrJoined(invite.id, db) { return .known }
            try db.execute(
                sql: """
                    INSERT INTO pending_invites (chat_id, invite, sender, received_at, state, creator, seq)
                    VALUES (?, ?, ?, ?, 'pending', ?, COALESCE((SELECT MAX(seq) FROM pending_invites), 0) + 1)
                    """,
                arguments: [invite.id.blob, Data(invite.encoded), sender.blob, receivedAtMillis, invite.creator.blob])
            try db.execute(sql: """
                DELETE FROM pending_invites WHERE chat_id IN (
                    SELECT chat_id FROM pending_invites WHERE state = 'pending' AND creator = ? ORDER BY seq DESC LIMIT -1 OFFSET ?)
                """, arguments: [invite.creator.blob, Self.maxPendingInvitesPerCreator])
            let droppedOfCreator = db.changesCount
            return .held(dropped: droppedOfCreator + (try Self.trim(state: "pending", keeping: Self.maxPendingInvites, db)))
        }
    }

    /// The invite to `chat` this node holds (pending or declined) without having joined it, if any.
    public func heldInvite(_ chat: ChatID) throws(StoreError) -> HeldInvite? {
        let row = try read("reading the held invite to chat \(chat.shortHex)") { db in
            try Row.fetchOne(db, sql: "SELECT state, creator FROM pending_invites WHERE chat_id = ?", arguments: [chat.blob])
        }
        guard let row else { return nil }
        let state: String = row["state"]
        let creator: Data? = row["creator"]
        return HeldInvite(
            state: HeldInvite.State(rawValue: state) ?? .declined,
            creator: try creator.map { blob throws(StoreError) in try PeerID.fromBlob(blob, "invite creator") })
    }

    private func holdsOrJoined(_ chat: ChatID) throws(StoreError) -> Bool {
        try read("checking for the invite to chat \(chat.shortHex)") { db in try Self.holdsOrJoined(chat, db) }
    }

    private static func holdsOrJoined(_ chat: ChatID, _ db: Database) throws -> Bool {
        if try ChatRecord.exists(db, key: chat.blob) { return true }
        return try Bool.fetchOne(db, sql: "SELECT 1 FROM pending_invites WHERE chat_id = ?", arguments: [chat.blob]) ?? false
    }

    /// The invites waiting for the user, oldest first.
    public func pendingInvites() throws(StoreError) -> [PendingInvite] {
        try read("listing pending invites") { db in
            try Row.fetchAll(db, sql: "SELECT invite, sender, received_at FROM pending_invites WHERE state = 'pending' ORDER BY seq")
                .map(Self.pendingInvite)
        }
    }

    /// The pending invite to `chat`, if one waits (one row decoded, not the whole list).
    public func pendingInvite(_ chat: ChatID) throws(StoreError) -> PendingInvite? {
        try read("reading pending invite \(chat.shortHex)") { db in
            try Row.fetchOne(
                db, sql: "SELECT invite, sender, received_at FROM pending_invites WHERE chat_id = ? AND state = 'pending'",
                arguments: [chat.blob]
            ).map(Self.pendingInvite)
        }
    }

    private static func pendingInvite(_ row: Row) throws -> PendingInvite {
        let bytes: Data = row["invite"]
        let invite: ChatInvite
        do { invite = try ChatInvite(decoding: Array(bytes)) } catch { throw StoreError.corrupt("a held invite no longer verifies: \(error)") }
        return PendingInvite(invite: invite, sender: try PeerID.fromBlob(row["sender"], "invite sender"), receivedAtMillis: row["received_at"])
    }

    /// Marks a pending invite declined (kept, bounded, so the same invite pushed again stays declined).
    /// Throws if no pending invite has that id.
    public func declineInvite(_ chat: ChatID) async throws(StoreError) {
        try await write("declining the invite to chat \(chat.shortHex)") { db in
            try db.execute(sql: "UPDATE pending_invites SET state = 'declined' WHERE chat_id = ? AND state = 'pending'", arguments: [chat.blob])
            guard db.changesCount == 1 else { throw StoreError.unknownInvite(chat.hex) }
            _ = try Self.trim(state: "declined", keeping: Self.maxDeclinedInvites, db)
        }
    }

    /// Records that `peer` accepted (acknowledged) the invite to `chat`, if it is a member.
    public func recordAcceptances(_ accepted: [(chat: ChatID, peer: PeerID)]) async throws(StoreError) {
        guard !accepted.isEmpty else { return }
        try await write("recording \(accepted.count) accepted invite(s)") { db in
            for (chat, peer) in accepted {
                try db.execute(sql: """
                    INSERT OR IGNORE INTO chat_acceptances (chat_id, peer_id)
                    SELECT chat_id, peer_id FROM chat_members WHERE chat_id = ? AND peer_id = ?
                    """, arguments: [chat.blob, peer.blob])
            }
        }
    }

    /// The current members of `chat` that have not acknowledged its invite to this node yet.
    public func membersWaiting(chat: ChatID) throws(StoreError) -> [PeerID] {
        try read("reading who has not accepted chat \(chat.shortHex)") { db in
            try Data.fetchAll(db, sql: """
                SELECT m.peer_id FROM chat_members m
                WHERE m.chat_id = ? AND NOT EXISTS (SELECT 1 FROM chat_acceptances a WHERE a.chat_id = m.chat_id AND a.peer_id = m.peer_id)
                ORDER BY m.peer_id
                """, arguments: [chat.blob]).map { try PeerID.fromBlob($0, "member") }
        }
    }

    /// Drops the oldest rows (by insertion order) in `state` past `limit`; returns how many.
    private static func trim(state: String, keeping limit: Int, _ db: Database) throws -> Int {
        try db.execute(sql: """
            DELETE FROM pending_invites WHERE chat_id IN (
                SELECT chat_id FROM pending_invites WHERE state = ? ORDER BY seq DESC LIMIT -1 OFFSET ?)
            """, arguments: [state, limit])
        return db.changesCount
    }
}
