internal import Foundation
internal import GRDB
import ParleyCore

extension MessageStore {
    /// Wire protocol 2 (hash-chained messages, one signature per batch). A store holding chats or
    /// messages of wire protocol 1 is refused as it is (the migration rolls back): its peers would
    /// refuse every byte of it. The indexes lose what no query needs, so an insert writes fewer trees:
    /// `messages_by_history` serves the chat's highest Lamport clock, and only own messages still
    /// waiting for acks (pending, sent) need finding by author and state.
    static func createV8WireProtocolChains(_ db: Database) throws {
        let current = Data([WireVersion.current])
        let legacy = try Data.fetchOne(db, sql: """
            SELECT substr(invite, 1, 1) FROM chats WHERE substr(invite, 1, 1) <> ?
            UNION ALL SELECT substr(encoded, 1, 1) FROM messages WHERE substr(encoded, 1, 1) <> ? LIMIT 1
            """, arguments: [current, current])
        if let version = legacy?.first {
            throw StoreError.olderWireProtocol(path: "", version: Int(version)) // the opener names the path
        }
        try db.drop(index: "messages_by_lamport")
        try db.drop(index: "messages_by_author_state")
        try db.create(index: "messages_awaiting_acks", on: "messages", columns: ["author"], condition: Column("state") == "pending" || Column("state") == "sent")
    }
}
