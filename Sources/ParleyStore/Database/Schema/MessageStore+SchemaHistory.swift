internal import GRDB

extension MessageStore {
    /// Receipts: when each delivery happened, how far this node's user has read each chat, who read
    /// which of our messages, and our receipts not yet acknowledged by their authors.
    static func createV2History(_ db: Database) throws {
        // Deliveries recorded before this migration keep a NULL time: delivered, when unknown.
        try db.alter(table: "deliveries") { t in t.add(column: "delivered_at_ms", .integer) }
        try db.create(table: "read_markers") { t in
            t.primaryKey("chat_id", .blob).references("chats", onDelete: .cascade)
            t.column("local_number", .integer).notNull().check(sql: "local_number >= 0")
        }
        try db.create(table: "read_receipts") { t in
            t.column("message_id", .blob).notNull().references("messages", onDelete: .cascade)
            t.column("reader", .blob).notNull().check(sql: "length(reader) = 32")
            t.column("read_at_ms", .integer).notNull()
            t.primaryKey(["message_id", "reader"])
        }
        try db.create(table: "pending_read_receipts") { t in
            t.primaryKey("message_id", .blob).references("messages", onDelete: .cascade)
            t.column("author", .blob).notNull().check(sql: "length(author) = 32")
        }
    }
}
