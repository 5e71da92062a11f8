internal import GRDB

extension MessageStore {
    /// A voter's ballot is its latest vote in its own chain, by (seq, id), no longer by a claimed
    /// Lamport clock (PROTOCOL §13): the rows chosen by the old order are chosen again.
    static func createV11BallotsByChainOrder(_ db: Database) throws {
        try db.execute(sql: "DELETE FROM poll_ballots")
        try db.execute(
            sql: """
                INSERT INTO poll_ballots (chat_id, poll_id, author, msg_tag, lamport, seq, message_id)
                SELECT r.chat_id, r.ref_id, m.author, r.msg_tag, m.lamport, m.seq, m.id
                FROM message_refs r JOIN messages m ON m.id = r.message_id
                WHERE r.msg_tag IN ('PollVoteUp', 'PollVoteDown') AND r.ref_tag = r.msg_tag
                ON CONFLICT (chat_id, poll_id, author) DO UPDATE SET
                    msg_tag = excluded.msg_tag, lamport = excluded.lamport, seq = excluded.seq, message_id = excluded.message_id
                WHERE (excluded.seq, excluded.message_id) > (poll_ballots.seq, poll_ballots.message_id)
                """)
    }

    /// History order by history clock (PROTOCOL §11, §14): a message's clock raised to the highest its
    /// author claims at a lower sequence, so no member's own later message sorts before its earlier one.
    ///
    /// `history_lamport` is set only where it differs from `lamport` (NULL otherwise); the insert path
    /// keeps it (`InsertBatch.historyClock`): it raises the new message to its author's previous history
    /// clock, and the author's later stored messages (a gap filled late) to the new one's.
    static func createV12HistoryClock(_ db: Database) throws {
        try db.alter(table: "messages") { t in t.add(column: "history_lamport", .integer) }
        try db.execute(
            sql: """
                UPDATE messages SET history_lamport = raised.clock
                FROM (SELECT rowid AS row, MAX(lamport) OVER (PARTITION BY chat_id, author ORDER BY seq) AS clock FROM messages) AS raised
                WHERE messages.rowid = raised.row AND raised.clock > messages.lamport
                """)
        try db.drop(index: "messages_by_history")
        try db.execute(
            sql: """
                CREATE INDEX messages_by_history_clock ON messages (chat_id, \(historyClock()), author, seq)
                """)
    }

    /// A message's history clock, as the index `messages_by_history_clock` holds it: queries must spell it
    /// this way (a table alias may qualify the columns) for SQLite to use that index.
    static func historyClock(of table: String? = nil) -> String {
        let prefix = table.map { "\($0)." } ?? ""
        return "COALESCE(\(prefix)history_lamport, \(prefix)lamport)"
    }
}
