internal import GRDB

extension MessageStore {
    /// Invites from peers who are not contacts wait for the user (`pending_invites`), and the creator's
    /// node remembers which invited members accepted (`chat_acceptances`), to say who it waits for.
    static func createV5PendingInvites(_ db: Database) throws {
        try db.create(table: "pending_invites", options: .withoutRowID) { t in
            t.primaryKey("chat_id", .blob)
            t.column("invite", .blob).notNull()
            t.column("sender", .blob).notNull()
            t.column("received_at", .integer).notNull()
            /// "pending", or "declined" (kept so a re-pushed invite stays declined).
            t.column("state", .text).notNull()
        }
        try db.create(index: "pending_invites_by_age", on: "pending_invites", columns: ["state", "received_at"])
        try db.create(table: "chat_acceptances", options: .withoutRowID) { t in
            t.column("chat_id", .blob).notNull().references("chats", onDelete: .cascade)
            t.column("peer_id", .blob).notNull()
            t.primaryKey(["chat_id", "peer_id"])
        }
        // Members of chats held before this migration are taken as having accepted: nothing says otherwise.
        try db.execute(
            sql: "INSERT OR IGNORE INTO chat_acceptances (chat_id, peer_id) SELECT chat_id, peer_id FROM chat_members")
    }
}
