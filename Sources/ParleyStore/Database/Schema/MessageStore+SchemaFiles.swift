internal import GRDB

extension MessageStore {
    /// Files held on this node (§13e): which manifests' bytes are on disk, whole or in part, and when a
    /// fetched one was completed, for the quota's oldest-first eviction. The bytes are files beside the
    /// store; a manifest without a row has none of its bytes here.
    static func createV15Files(_ db: Database) throws {
        try db.create(table: "files", options: .withoutRowID) { t in
            t.primaryKey("message_id", .blob).check(sql: "length(message_id) = 32")
            t.column("chat_id", .blob).notNull().references("chats", onDelete: .cascade)
            t.column("size", .integer).notNull()
            t.column("state", .text).notNull().check(sql: "state IN ('partial', 'held')")
            t.column("sent_here", .boolean).notNull()
            t.column("held_at_ms", .integer)
        }
        try db.create(index: "files_by_held_at", on: "files", columns: ["sent_here", "held_at_ms"])
    }
}
