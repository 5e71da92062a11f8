internal import GRDB

extension MessageStore {
    /// Chats are listed in history order (`HistoryPosition`: Lamport clock, author, sequence), the
    /// same on every node; this index answers those pages and a chat's latest message.
    static func createV4HistoryOrder(_ db: Database) throws {
        try db.create(index: "messages_by_history", on: "messages", columns: ["chat_id", "lamport", "author", "seq"])
    }
}
