internal import GRDB
public import ParleyCore

extension MessageStore {
    /// The messages matching `criteria`, by local number ascending; with a limit, the latest `limit`.
    public func messages(matching criteria: MessageCriteria) throws(StoreError) -> [StoredMessage] {
        try read("querying messages of chat \(criteria.chat.shortHex)") { db in try Self.fetch(criteria, db) }
    }

    public func message(_ id: MessageID) throws(StoreError) -> StoredMessage? {
        try read("reading message \(id.shortHex)") { db in
            try Self.fetchStored(db, "WHERE m.id = ?", [id.blob]).first
        }
    }

    /// Which of `messages` are stored: lets the receive path skip signature checks for duplicates.
    /// Without a read: the ones stored last (`RecentlyStored`), and any whose sequence is above the
    /// highest its author has stored in its chat as last committed (`CommittedPositions`): live
    /// traffic is new, and a delivery of it used to cost a lookup by id per message to learn so.
    public func storedIDs(among messages: [Message]) throws(StoreError) -> Set<MessageID> {
        guard !messages.isEmpty else { return [] }
        let recent = recentlyStored.contained(in: messages.map(\.id))
        let unknown = messages.filter { message in
            guard !recent.contains(message.id) else { return false }
            guard let head = committedPositions.head(AuthorLane(of: message)) else { return true }
            return message.sequence <= UInt64(head.max)
        }
        guard !unknown.isEmpty else { return recent }
        return try read("checking \(unknown.count) message id(s)") { db in
            let statement = try db.cachedStatement(sql: "SELECT 1 FROM messages WHERE id = ?")
            var stored = recent
            for message in unknown where try Bool.fetchOne(statement, arguments: [message.id.blob]) == true {
                stored.insert(message.id)
            }
            return stored
        }
    }

    /// The tags of those of `ids` that are stored.
    public func tags(of ids: Set<MessageID>) throws(StoreError) -> [MessageID: Tag] {
        guard !ids.isEmpty else { return [:] }
        let found = try read("reading the tags of \(ids.count) message(s)") { db in
            let statement = try db.cachedStatement(sql: "SELECT tag FROM messages WHERE id = ?")
            return try ids.compactMap { id in try String.fetchOne(statement, arguments: [id.blob]).map { (id, $0) } }
        }
        var tags: [MessageID: Tag] = [:]
        for (id, raw) in found {
            do { tags[id] = try Tag(raw) } catch {
                throw .corrupt("message \(id.shortHex) has an invalid tag: \(error)")
            }
        }
        return tags
    }

    /// The message whose id starts with `prefix` (hex, any case, any length), optionally within one chat.
    public func resolveMessage(prefix: String, in chat: ChatID?) throws(StoreError) -> MessageID {
        let range = try IDPrefix(prefix)
        let matches = try read("resolving message prefix '\(prefix)'") { db in
            if let chat {
                try range.matches(
                    db, table: MessageRecord.databaseTableName, filter: "AND chat_id = ?", arguments: [chat.blob])
            } else {
                try range.matches(db, table: MessageRecord.databaseTableName)
            }
        }
        return try range.unique(matches, kind: "message")
    }

    static func fetch(_ criteria: MessageCriteria, _ db: Database) throws -> [StoredMessage] {
        let query = CriteriaQuery(criteria)
        let found = try fetchStored(db, query.tail, query.arguments)
        return query.newestFirst ? found.reversed() : found
    }
}

extension MessageStore {
    /// Every stored-message query selects the row plus its delivery count (from the `deliveries` primary key)
    /// and, for own messages only (others' are `received`; SQLite skips a CASE branch not taken, so
    /// others' rows cost nothing more), how many current members read it and how many there are to
    /// reach: what the delivery ticks show.
    static let storedMessageSelection = """
        m.*, (SELECT COUNT(*) FROM deliveries d WHERE d.chat_id = m.chat_id AND d.local_number = m.local_number) AS delivered_to,
        CASE WHEN m.state = '\(DeliveryState.received.rawValue)' THEN 0 ELSE (SELECT COUNT(*) FROM read_receipts r
            JOIN chat_members c ON c.chat_id = m.chat_id AND c.peer_id = r.reader WHERE r.message_id = m.id) END AS read_by,
        CASE WHEN m.state = '\(DeliveryState.received.rawValue)' THEN 0 ELSE (SELECT COUNT(*) FROM chat_members c
            WHERE c.chat_id = m.chat_id AND c.peer_id != m.author) END AS recipients
        FROM messages m
        """

    /// Runs `SELECT <stored message> <tail>` where `tail` filters and orders `messages m`.
    static func fetchStored(_ db: Database, _ tail: String, _ arguments: StatementArguments) throws -> [StoredMessage] {
        // A handful of query shapes serve every criteria: each is prepared once per connection.
        let statement = try db.cachedStatement(sql: "SELECT \(storedMessageSelection) \(tail)")
        let rows = try Row.fetchCursor(statement, arguments: arguments)
        var keyring = Keyring()
        var result: [StoredMessage] = []
        while let row = try rows.next() {
            let stored = try MessageRecord(row: row).storedMessage(
                deliveredTo: row["delivered_to"], readBy: row["read_by"], recipients: row["recipients"])
            result.append(try keyring.open(stored, db))
        }
        return result
    }
}
