internal import Foundation
internal import GRDB
import ParleyCore

/// The `poll_ballots` rows: each author's latest yes/no vote per (chat, referenced message), closes
/// ignored. Written on insert, read by the tally.
enum PollBallots {
    /// Makes `vote` its author's ballot on `target` unless a later vote is held. "Later" is
    /// PollRules.isLater's order, the author's own chain: (seq, id), compared as SQLite row values:
    /// integers by value, ids bytewise as MessageID orders them. So any arrival order leaves the same row.
    static func cast(_ vote: Message, on target: MessageID, _ db: Database) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO poll_ballots (chat_id, poll_id, author, msg_tag, lamport, seq, message_id) VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (chat_id, poll_id, author) DO UPDATE SET
                    msg_tag = excluded.msg_tag, lamport = excluded.lamport, seq = excluded.seq, message_id = excluded.message_id
                WHERE (excluded.seq, excluded.message_id) > (poll_ballots.seq, poll_ballots.message_id)
                """
        ).execute(arguments: [
            vote.chat.blob, target.blob, vote.author.blob, vote.tag.rawValue,
            Int64(vote.lamport), Int64(vote.sequence), vote.id.blob,
        ])
    }

    private static let voteTags = [Tag.pollVoteUp, .pollVoteDown]

    /// The ballots on `poll` in `chat`, from their columns alone.
    static func fetch(chat: ChatID, poll: MessageID, _ db: Database) throws -> [PollEventRecord] {
        let rows = try Row.fetchCursor(
            db.cachedStatement(
                sql:
                    "SELECT message_id, author, lamport, seq, msg_tag FROM poll_ballots WHERE chat_id = ? AND poll_id = ?"
            ),
            arguments: [chat.blob, poll.blob])
        var ballots: [PollEventRecord] = []
        while let row = try rows.next() {
            let id = try MessageID.fromBlob(row[0], "ballot id")
            let lamport: Int64 = row[2], sequence: Int64 = row[3], tagName: String = row[4]
            guard let tag = voteTags.first(where: { $0.rawValue == tagName }) else {
                throw StoreError.corrupt("ballot \(id.shortHex) has the tag '\(tagName)'")
            }
            ballots.append(
                PollEventRecord(
                    id: id, author: try PeerID.fromBlob(row[1], "ballot author"), lamport: UInt64(lamport),
                    sequence: UInt64(sequence), tag: tag))
        }
        return ballots
    }
}
