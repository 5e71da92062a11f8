internal import GRDB
import ParleyCore
import ParleyCrypto

extension MessageStore {
    /// Wire protocol 2 (hash-chained messages, one signature per batch). A store holding chats or
    /// messages of wire protocol 1 is refused as it is (the migration rolls back): its peers would
    /// refuse every byte of it. The indexes lose what no query needs, so an insert writes fewer trees:
    /// `messages_by_history` serves the chat's highest Lamport clock, and only own messages still
    /// waiting for acks (pending, sent) need finding by author and state.
    static func createV8WireProtocolChains(_ db: Database) throws {
        // Compared as hex, so a row of any storage class is read by its first byte.
        let current = Hex.encode([WireVersion.current]).uppercased()
        let legacy = try String.fetchOne(
            db,
            sql: """
                SELECT hex(substr(invite, 1, 1)) FROM chats WHERE hex(substr(invite, 1, 1)) <> ?
                UNION ALL SELECT hex(substr(encoded, 1, 1)) FROM messages WHERE hex(substr(encoded, 1, 1)) <> ? LIMIT 1
                """, arguments: [current, current])
        if let legacy {
            // The opener names the path.
            throw StoreError.olderWireProtocol(path: "", version: Int(legacy, radix: 16) ?? 0)
        }
        try db.drop(index: "messages_by_lamport")
        try db.drop(index: "messages_by_author_state")
        try db.create(
            index: "messages_awaiting_acks", on: "messages", columns: ["author"],
            condition: Column("state") == "pending" || Column("state") == "sent")
    }
}
