internal import GRDB
public import ParleyCore

extension MessageStore {
    /// Empties the `content` column of these messages (a message deleted for everyone, and its
    /// edits): the search index drops their text in the same transaction (its trigger) and never
    /// indexes it again. The signed encoding stays: hash chains and members' sync verify through it
    /// (PROTOCOL.md §13d). Only Text, Custom, Poll and Edit messages are touched; anything else keeps
    /// the content its rules read (a membership change's keys, a ballot's choice).
    public func eraseContent(of ids: [MessageID]) async throws(StoreError) {
        guard !ids.isEmpty else { return }
        let blobs = ids.map(\.blob)
        try await write("erasing the content of deleted messages", keepsMemberships: true) { db in
            let statement = try db.cachedStatement(
                sql: """
                    UPDATE messages SET content = x'' WHERE id = ? AND length(content) > 0
                    AND tag IN ('\(Tag.text)', '\(Tag.custom)', '\(Tag.poll)', '\(Tag.edit)', '\(Tag.file)')
                    """)
            for blob in blobs { try statement.execute(arguments: [blob]) }
        }
    }
}

extension MessageStore {
    /// Which of `ids` (messages of `chat`) a stored `Delete` names: one probe per id of the reference
    /// index, so a received batch learns cheaply whether a deletion arrived before it. In a chat known
    /// to hold no deletion, no read at all (`ChatsWithDeletions`).
    public func deletionTargets(chat: ChatID, among ids: [MessageID]) throws(StoreError) -> Set<MessageID> {
        let known = chatsWithDeletions.holdsDeletion(chat)
        guard !ids.isEmpty, known != false else { return [] }
        return try read("reading deletions") { db in
            let deletion =
                "FROM message_refs WHERE chat_id = ? AND ref_tag = '\(Tag.delete)' AND msg_tag = '\(Tag.delete)'"
            if known == nil {
                let any =
                    try Bool.fetchOne(
                        db.cachedStatement(sql: "SELECT 1 \(deletion) LIMIT 1"), arguments: [chat.blob]) != nil
                chatsWithDeletions.learn(chat, holdsDeletion: any)
                if !any { return [] }
            }
            let statement = try db.cachedStatement(sql: "SELECT 1 \(deletion) AND ref_id = ? LIMIT 1")
            var found = Set<MessageID>()
            for id in ids where try Bool.fetchOne(statement, arguments: [chat.blob, id.blob]) != nil {
                found.insert(id)
            }
            return found
        }
    }
}
