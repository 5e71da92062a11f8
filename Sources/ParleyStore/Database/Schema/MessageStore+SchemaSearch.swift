internal import GRDB

extension MessageStore {
    /// Full-text search over this node's own plaintext (`MessageStore+Search`): an FTS5 table whose
    /// rowid is the `messages` rowid of the message carrying the text (the store never runs `VACUUM`,
    /// which could renumber them), and per chat the local number the index has caught up to.
    ///
    /// Content is sealed in the table, so SQL alone cannot index it: the indexer opens it in Swift,
    /// off the insert transaction (`indexForSearch`). The trigger keeps the index true to later changes
    /// of `content` (a message deleted for everyone is emptied): the old text leaves the index in the
    /// same transaction, and a new non-empty content is indexed again by moving the chat's mark back.
    static func createV13MessageSearch(_ db: Database) throws {
        // Every word of a search is a prefix, and without a prefix index SQLite answers one by reading the
        // whole doclist of every term it covers before the newest 25 can be taken: 150 ms to a second
        // for a word in half the messages of a million (docs/bench). Prefixes of 2 to 6 characters are
        // indexed as terms of their own, read newest first like a word: about twice the table's size.
        try db.execute(
            sql: """
                CREATE VIRTUAL TABLE message_search USING fts5(
                    body, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3 4 5 6')
                """)
        try db.create(table: "search_progress", options: .withoutRowID) { t in
            t.primaryKey("chat_id", .blob).references("chats", onDelete: .cascade)
            t.column("indexed_to", .integer).notNull().check(sql: "indexed_to >= 0")
        }
        try db.execute(
            sql: """
                CREATE TRIGGER message_search_follows_content AFTER UPDATE OF content ON messages
                BEGIN
                    DELETE FROM message_search WHERE rowid = old.rowid;
                    UPDATE search_progress SET indexed_to = new.local_number - 1
                    WHERE chat_id = new.chat_id AND indexed_to >= new.local_number AND length(new.content) > 0;
                END
                """)
    }
}
