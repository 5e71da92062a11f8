internal import GRDB

extension MessageStore {
    /// The schema, as named migrations that only move forward. A shipped migration is never edited:
    /// later changes are new migrations appended below.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-chats-messages-contacts", migrate: createV1)
        migrator.registerMigration("v2-chat-kinds-epochs-keys", migrate: createV2ChatKindsEpochsKeys)
        migrator.registerMigration("v2-history-receipts", migrate: createV2History)
        migrator.registerMigration("v3-poll-ballots", migrate: createV3PollBallots)
        migrator.registerMigration("v4-history-order", migrate: createV4HistoryOrder)
        migrator.registerMigration("v5-pending-invites", migrate: createV5PendingInvites)
        migrator.registerMigration("v6-store-owner", migrate: createV6StoreOwner)
        migrator.registerMigration("v7-pending-invite-order", migrate: createV7PendingInviteOrder)
        migrator.registerMigration("v8-wire-protocol-chains", migrate: createV8WireProtocolChains)
        migrator.registerMigration("v9-deliveries-by-local-number", migrate: createV9DeliveriesByLocalNumber)
        migrator.registerMigration("v10-fork-proofs", migrate: createV10ForkProofs)
        migrator.registerMigration("v11-ballots-by-chain-order", migrate: createV11BallotsByChainOrder)
        migrator.registerMigration("v12-history-clock", migrate: createV12HistoryClock)
        migrator.registerMigration("v13-message-search", migrate: createV13MessageSearch)
        migrator.registerMigration("v14-muted-chats", migrate: createV13MutedChats)
        migrator.registerMigration("v15-files", migrate: createV15Files)
        return migrator
    }

    private static func createV1(_ db: Database) throws {
        try db.create(table: "chats") { t in
            t.primaryKey("id", .blob).check(sql: "length(id) = 32")
            t.column("creator", .blob).notNull()
            t.column("title", .text).notNull()
            t.column("created_at_ms", .integer).notNull()
            t.column("invite", .blob).notNull()
            t.column("joined_at_ms", .integer).notNull()
        }
        try db.create(table: "chat_members") { t in
            t.column("chat_id", .blob).notNull().references("chats", onDelete: .cascade)
            t.column("peer_id", .blob).notNull().check(sql: "length(peer_id) = 32")
            t.primaryKey(["chat_id", "peer_id"])
        }
        try db.create(table: "messages") { t in
            t.primaryKey("id", .blob).check(sql: "length(id) = 32")
            t.column("chat_id", .blob).notNull().references("chats", onDelete: .cascade)
            t.column("author", .blob).notNull().check(sql: "length(author) = 32")
            t.column("seq", .integer).notNull().check(sql: "seq > 0")
            t.column("lamport", .integer).notNull().check(sql: "lamport >= 0")
            t.column("timestamp_ms", .integer).notNull()
            t.column("tag", .text).notNull()
            t.column("content", .blob).notNull()
            t.column("encoded", .blob).notNull()
            t.column("local_number", .integer).notNull().check(sql: "local_number > 0")
            t.column("received_at_ms", .integer).notNull()
            t.column("state", .text).notNull()
                .check(sql: "state IN ('pending', 'sent', 'delivered', 'received')")
            // One message per (chat, author, sequence): an equivocating second one is refused.
            t.uniqueKey(["chat_id", "author", "seq"])
            // Arrival order; also serves "the whole chat, in order" and MAX(local_number).
            t.uniqueKey(["chat_id", "local_number"])
        }
        try db.create(index: "messages_by_tag", on: "messages", columns: ["chat_id", "tag", "local_number"])
        try db.create(index: "messages_by_lamport", on: "messages", columns: ["chat_id", "lamport"])
        // Own messages still waiting for acknowledgements, for retransmission after a restart.
        try db.create(index: "messages_by_author_state", on: "messages", columns: ["author", "state"])

        try db.create(table: "message_refs") { t in
            t.column("message_id", .blob).notNull().references("messages", onDelete: .cascade)
            t.column("chat_id", .blob).notNull()
            // Not a foreign key: a reference may arrive before the message it names.
            t.column("ref_id", .blob).notNull()
            t.column("ref_tag", .text).notNull()
            t.column("msg_tag", .text).notNull()
            t.primaryKey(["message_id", "ref_id", "ref_tag"])
        }
        // "Messages referencing X [with reference tag T] [of tag U]": the poll tally query.
        try db.create(
            index: "message_refs_by_target", on: "message_refs", columns: ["chat_id", "ref_id", "ref_tag", "msg_tag"])
        // "Messages carrying any reference with tag T [of tag U]".
        try db.create(index: "message_refs_by_tag", on: "message_refs", columns: ["chat_id", "ref_tag", "msg_tag"])

        try db.create(table: "author_heads") { t in
            t.column("chat_id", .blob).notNull().references("chats", onDelete: .cascade)
            t.column("author", .blob).notNull()
            t.column("contiguous_seq", .integer).notNull().check(sql: "contiguous_seq >= 0")
            t.column("max_seq", .integer).notNull().check(sql: "max_seq >= contiguous_seq")
            t.primaryKey(["chat_id", "author"])
        }
        try db.create(table: "local_data") { t in
            t.column("message_id", .blob).notNull().references("messages", onDelete: .cascade)
            t.column("key", .text).notNull()
            t.column("value", .text).notNull()
            t.primaryKey(["message_id", "key"])
        }
        try db.create(table: "contacts") { t in
            t.primaryKey("peer_id", .blob).check(sql: "length(peer_id) = 32")
            t.column("name", .text).notNull().unique().collate(.nocase).check(sql: "length(name) > 0")
            t.column("address", .text)
        }
        try db.create(table: "deliveries") { t in
            t.column("message_id", .blob).notNull().references("messages", onDelete: .cascade)
            t.column("peer_id", .blob).notNull()
            t.primaryKey(["message_id", "peer_id"])
        }
    }
}
