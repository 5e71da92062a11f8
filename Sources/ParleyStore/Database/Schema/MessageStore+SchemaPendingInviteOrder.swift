internal import Foundation
internal import GRDB
internal import ParleyCore

extension MessageStore {
    /// Pending invites get an insertion number (`seq`, so the oldest is dropped first without a tie on
    /// time) and their creator (`creator`, so one creator's invites can be capped). Rows held before
    /// this migration are numbered in their old order; one whose invite no longer decodes keeps no creator.
    static func createV7PendingInviteOrder(_ db: Database) throws {
        try db.alter(table: "pending_invites") { t in
            t.add(column: "seq", .integer).notNull().defaults(to: 0)
            t.add(column: "creator", .blob)
        }
        let rows = try Row.fetchAll(
            db, sql: "SELECT chat_id, invite FROM pending_invites ORDER BY received_at, chat_id")
        for (index, row) in rows.enumerated() {
            let bytes: Data = row["invite"]
            let creator = (try? ChatInvite(decoding: Array(bytes)))?.creator.blob
            let chat: Data = row["chat_id"]
            try db.execute(
                sql: "UPDATE pending_invites SET seq = ?, creator = ? WHERE chat_id = ?",
                arguments: [index + 1, creator, chat])
        }
        try db.create(index: "pending_invites_by_seq", on: "pending_invites", columns: ["state", "seq"])
        try db.create(index: "pending_invites_by_creator", on: "pending_invites", columns: ["creator", "state", "seq"])
    }
}
