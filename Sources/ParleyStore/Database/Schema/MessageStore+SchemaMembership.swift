internal import GRDB

extension MessageStore {
    /// Chat kinds, membership epochs and chat keys. Chats stored before it become legacy groups
    /// (unkeyed, epoch 0 = their invite's members).
    static func createV2ChatKindsEpochsKeys(_ db: Database) throws {
        try db.alter(table: "chats") { t in
            t.add(column: "kind", .text).notNull().defaults(to: "group")
            t.add(column: "keyed", .boolean).notNull().defaults(to: false)
            // The epoch whose members `chat_members` holds: the current one.
            t.add(column: "epoch", .integer).notNull().defaults(to: 0)
            t.add(column: "epoch_message_id", .blob)
        }
        // Every epoch's members: a message sealed in epoch E counts only if its author was a member in E,
        // which every member decides the same way whatever order things arrive in.
        try db.create(table: "chat_epochs") { t in
            t.column("chat_id", .blob).notNull().references("chats", onDelete: .cascade)
            t.column("epoch", .integer).notNull().check(sql: "epoch >= 0")
            // The "Membership" message that set it (NULL for epoch 0, set by the invite).
            t.column("message_id", .blob)
            t.primaryKey(["chat_id", "epoch"])
        }
        try db.create(table: "chat_epoch_members") { t in
            t.column("chat_id", .blob).notNull()
            t.column("epoch", .integer).notNull()
            t.column("peer_id", .blob).notNull().check(sql: "length(peer_id) = 32")
            t.primaryKey(["chat_id", "epoch", "peer_id"])
            t.foreignKey(["chat_id", "epoch"], references: "chat_epochs", onDelete: .cascade)
        }
        // This node's chat keys: private like the identity key (the store is 0600 in a 0700 directory).
        try db.create(table: "chat_keys") { t in
            t.column("chat_id", .blob).notNull().references("chats", onDelete: .cascade)
            t.column("epoch", .integer).notNull()
            t.column("key", .blob).notNull().check(sql: "length(key) = 32")
            t.primaryKey(["chat_id", "epoch", "key"])
        }
        try db.execute(
            sql: """
                INSERT INTO chat_epochs (chat_id, epoch, message_id) SELECT id, 0, NULL FROM chats;
                INSERT INTO chat_epoch_members (chat_id, epoch, peer_id) SELECT chat_id, 0, peer_id FROM chat_members;
                """)
    }
}
