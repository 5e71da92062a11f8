internal import GRDB

extension MessageStore {
    /// Open ballots: each author's latest yes/no vote per (chat, referenced message), ignoring closes,
    /// kept on insert so a tally reads one row per voter instead of every vote. A vote is a message
    /// tagged PollVoteUp/PollVoteDown whose reference to the target carries its own tag; "latest" is by
    /// (lamport, seq, id) as PollRules orders votes (SQLite compares these blobs bytewise, as MessageID does).
    static func createV3PollBallots(_ db: Database) throws {
        try db.create(table: "poll_ballots", options: .withoutRowID) { t in
            t.column("chat_id", .blob).notNull().references("chats", onDelete: .cascade)
            t.column("poll_id", .blob).notNull()
            t.column("author", .blob).notNull()
            t.column("msg_tag", .text).notNull()
            t.column("lamport", .integer).notNull()
            t.column("seq", .integer).notNull()
            t.column("message_id", .blob).notNull()
            t.primaryKey(["chat_id", "poll_id", "author"])
        }
        // The votes already stored, through the same upsert the insert path runs: the latest one wins
        // whatever order the rows come in. (`WHERE` before `ON CONFLICT` is SQLite's required form.)
        try db.execute(
            sql: """
                INSERT INTO poll_ballots (chat_id, poll_id, author, msg_tag, lamport, seq, message_id)
                SELECT r.chat_id, r.ref_id, m.author, r.msg_tag, m.lamport, m.seq, m.id
                FROM message_refs r JOIN messages m ON m.id = r.message_id
                WHERE r.msg_tag IN ('PollVoteUp', 'PollVoteDown') AND r.ref_tag = r.msg_tag
                ON CONFLICT (chat_id, poll_id, author) DO UPDATE SET
                    msg_tag = excluded.msg_tag, lamport = excluded.lamport, seq = excluded.seq, message_id = excluded.message_id
                WHERE (excluded.lamport, excluded.seq, excluded.message_id) > (poll_ballots.lamport, poll_ballots.seq, poll_ballots.message_id)
                """)
    }
}
