internal import GRDB

extension MessageStore {
    /// The identity a store belongs to (`store_owner`, at most one row): its chat keys and history were
    /// received for that key, so a node started with another key must not use them. Stores from before
    /// this migration have no row; the first node that starts on one records its key.
    static func createV6StoreOwner(_ db: Database) throws {
        try db.create(table: "store_owner") { t in
            t.primaryKey("id", .integer).check(sql: "id = 1")
            t.column("peer_id", .blob).notNull().check(sql: "length(peer_id) = 32")
        }
    }
}
