internal import Foundation
internal import GRDB
public import ParleyCore

extension MessageStore {
    /// The yes/no votes and the closes of a poll, as `PollRules.tally(poll:votes:closes:)` reads them:
    /// the messages of the poll's chat referencing it through a reference carrying their own tag.
    /// Read from the columns over the reference index, with no message decoded or opened.
    public func pollEvents(chat: ChatID, poll: MessageID) throws(StoreError) -> (votes: [PollEventRecord], closes: [PollEventRecord]) {
        try read("reading the votes of poll \(poll.shortHex)") { db in
                let statement = try db.cachedStatement(sql: """
                    SELECT m.id, m.author, m.lamport, m.seq FROM message_refs r JOIN messages m ON m.id = r.message_id
                    WHERE r.chat_id = ? AND r.ref_id = ? AND r.ref_tag = ? AND r.msg_tag = ?
                    """)
                func events(_ tag: Tag) throws -> [PollEventRecord] {
                    let rows = try Row.fetchCursor(statement, arguments: [chat.blob, poll.blob, tag.rawValue, tag.rawValue])
                    var events: [PollEventRecord] = []
                    while let row = try rows.next() {
                        let lamport: Int64 = row[2], sequence: Int64 = row[3]
                        events.append(PollEventRecord(
                            id: try MessageID.fromBlob(row[0], "vote id"), author: try PeerID.fromBlob(row[1], "vote author"),
                            lamport: UInt64(lamport), sequence: UInt64(sequence), tag: tag))
                    }
                    return events
                }
                return (try events(.pollVoteUp) + events(.pollVoteDown), try events(.pollClose))
            }
    }
}
