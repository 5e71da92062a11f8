internal import GRDB

extension MessageStore {
    /// Fork proofs (PROTOCOL.md §4.4): per (chat, author), the proof with the lowest forked sequence
    /// held. The proof carries both branches' messages as evidence; the `messages` table keeps the
    /// branch stored first, and the rules count neither from `seq` on.
    static func createV10ForkProofs(_ db: Database) throws {
        try db.create(table: "fork_proofs", options: .withoutRowID) { t in
            t.column("chat_id", .blob).notNull().references("chats", onDelete: .cascade)
            t.column("author", .blob).notNull().check(sql: "length(author) = 32")
            t.column("seq", .integer).notNull().check(sql: "seq > 0")
            t.column("proof", .blob).notNull()
            t.column("found_at_ms", .integer).notNull()
            t.primaryKey(["chat_id", "author"])
        }
    }
}
