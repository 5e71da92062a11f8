internal import Foundation
internal import GRDB
public import ParleyCore

extension MessageStore {
    /// The yes/no votes and the closes of a poll, as `PollRules.tally(poll:votes:closes:)` reads them:
    /// the messages of the poll's chat referencing it through a reference carrying their own tag.
    /// Votes are read from the columns over the reference index, with no message decoded or opened;
    /// closes (few, and their content says what they cover) are read whole and opened.
    public func pollEvents(chat: ChatID, poll: MessageID) throws(StoreError) -> (
        votes: [PollEventRecord], closes: [Message]
    ) {
        try read("reading the votes of poll \(poll.shortHex)") { db in
            (
                try Self.referencing(poll, in: chat, tag: .pollVoteUp, db)
                    + Self.referencing(poll, in: chat, tag: .pollVoteDown, db),
                try Self.closes(of: poll, in: chat, db)
            )
        }
    }

    /// The poll's open ballots (each author's latest vote, closes ignored, kept on insert) and its
    /// closes, as `PollRules.tally(poll:openBallots:closes:)` reads them: one row per voter.
    public func pollBallots(chat: ChatID, poll: MessageID) throws(StoreError) -> (
        ballots: [PollEventRecord], closes: [Message]
    ) {
        try read("reading the ballots of poll \(poll.shortHex)") { db in
            (try PollBallots.fetch(chat: chat, poll: poll, db), try Self.closes(of: poll, in: chat, db))
        }
    }

    private static func closes(of poll: MessageID, in chat: ChatID, _ db: Database) throws -> [Message] {
        try fetch(MessageCriteria(chat: chat, tag: .pollClose, referencing: poll, referenceTag: .pollClose), db).map(
            \.message)
    }

    /// The messages of `chat` tagged `tag` that reference `poll` through a reference carrying that tag.
    private static func referencing(_ poll: MessageID, in chat: ChatID, tag: Tag, _ db: Database) throws
        -> [PollEventRecord]
    {
        let statement = try db.cachedStatement(
            sql: """
                SELECT m.id, m.author, m.lamport, m.seq FROM message_refs r JOIN messages m ON m.id = r.message_id
                WHERE r.chat_id = ? AND r.ref_id = ? AND r.ref_tag = ? AND r.msg_tag = ?
                """)
        let rows = try Row.fetchCursor(statement, arguments: [chat.blob, poll.blob, tag.rawValue, tag.rawValue])
        var events: [PollEventRecord] = []
        while let row = try rows.next() {
            let lamport: Int64 = row[2], sequence: Int64 = row[3]
            events.append(
                PollEventRecord(
                    id: try MessageID.fromBlob(row[0], "\(tag.rawValue) id"),
                    author: try PeerID.fromBlob(row[1], "\(tag.rawValue) author"),
                    lamport: UInt64(lamport), sequence: UInt64(sequence), tag: tag))
        }
        return events
    }
}
