internal import GRDB

extension MessageStore {
    /// Chats this node's user muted (issue 36): a row per muted chat, kept on this node and never
    /// sent. Front ends leave a muted chat out of notifications and of the page's unread total.
    static func createV13MutedChats(_ db: Database) throws {
        try db.create(table: "muted_chats", options: .withoutRowID) { t in
            t.primaryKey("chat_id", .blob).references("chats", onDelete: .cascade)
            t.column("muted_at_ms", .integer).notNull()
        }
    }
}
