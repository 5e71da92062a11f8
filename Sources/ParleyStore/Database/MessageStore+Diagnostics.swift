internal import GRDB
import ParleyCore

// Hooks for tests and debugging, kept internal: they bypass the store's invariants.
extension MessageStore {
    /// SQLite's plan for a criteria query, one line per step ("SEARCH r USING INDEX …").
    func queryPlan(_ criteria: MessageCriteria) throws(StoreError) -> [String] {
        let query = CriteriaQuery(criteria)
        return try read("explaining a query") { db in
            try Row.fetchAll(
                db, sql: "EXPLAIN QUERY PLAN SELECT \(Self.storedMessageSelection) \(query.tail)",
                arguments: query.arguments
            ).map { $0["detail"] as String }
        }
    }

    /// SQLite's plan for `unreadCount`.
    func unreadCountPlan(chat: ChatID, me: PeerID) throws(StoreError) -> [String] {
        try read("explaining the unread count") { db in
            try Row.fetchAll(
                db, sql: "EXPLAIN QUERY PLAN \(Self.unreadCountSQL)",
                arguments: [chat.blob] + StatementArguments(ContentKind.shownTags.map(\.rawValue)) + [0, me.blob]
            ).map { $0["detail"] as String }
        }
    }

    /// The value of a PRAGMA on a reading connection (each connection is configured alike).
    func pragma(_ name: String) throws(StoreError) -> String? {
        try read("reading PRAGMA \(name)") { db in try String.fetchOne(db, sql: "PRAGMA \(name)") }
    }

    /// Runs raw SQL in a write transaction: lets tests fake a store from a newer Parley.
    func executeUnchecked(_ sql: String) async throws(StoreError) {
        try await write("running raw SQL") { db in try db.execute(sql: sql) }
    }
}
