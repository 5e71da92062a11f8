internal import Foundation
internal import GRDB
public import ParleyCore

extension MessageStore {
    /// Stores a batch of verified messages in ONE transaction and says what happened to each, in order.
    ///
    /// Duplicates (same id, or same chat/author/sequence: equivocation) are dropped and the first one
    /// kept. Each stored message gets the next local number of its chat; sync heads move forward.
    /// Signatures are the caller's job: this stores what it is given.
    public func insert(
        _ messages: [Message], receivedAtMillis: Int64, ownAuthor: PeerID
    ) async throws(StoreError) -> [InsertOutcome] {
        if messages.isEmpty { return [] }
        return try await write("inserting \(messages.count) message(s)") { db in
            var batch = InsertBatch()
            return try messages.map { message in
                try batch.insert(message, db: db, receivedAtMillis: receivedAtMillis, ownAuthor: ownAuthor)
            }
        }
    }
}

/// Per-transaction caches, so a burst into one chat reads its members and last local number once.
private struct InsertBatch {
    private var members: [ChatID: Set<PeerID>?] = [:]
    private var nextLocalNumber: [ChatID: Int64] = [:]

    mutating func insert(_ message: Message, db: Database, receivedAtMillis: Int64, ownAuthor: PeerID) throws -> InsertOutcome {
        guard message.sequence <= UInt64(Int64.max), message.lamport <= UInt64(Int64.max) else { return .outOfRange }
        guard let chatMembers = try members(of: message.chat, db) else { return .unknownChat }
        guard chatMembers.contains(message.author) else { return .notMember }
        if try isDuplicate(message, db) { return .duplicate }

        let localNumber = try takeLocalNumber(message.chat, db)
        let state: DeliveryState = message.author == ownAuthor ? .pending : .received
        try MessageRecord(message, localNumber: localNumber, receivedAtMillis: receivedAtMillis, state: state).insert(db)
        for reference in message.references {
            // A message may repeat a reference; one row is enough to find it.
            try MessageRefRecord(
                messageId: message.id.blob, chatId: message.chat.blob, refId: reference.id.blob,
                refTag: reference.tag.rawValue, msgTag: message.tag.rawValue
            ).insert(db, onConflict: .ignore)
        }
        try advanceHead(message, db)
        return .inserted(StoredMessage(
            message: message, localNumber: localNumber, receivedAtMillis: receivedAtMillis, state: state, deliveredTo: 0))
    }

    /// nil when the chat is not joined (every joined chat has at least its creator).
    private mutating func members(of chat: ChatID, _ db: Database) throws -> Set<PeerID>? {
        if let cached = members[chat] { return cached }
        let blobs = try Data.fetchAll(
            db, ChatMemberRecord.select(ChatMemberRecord.Columns.peerId).filter { $0.chatId == chat.blob })
        let found: Set<PeerID>? = blobs.isEmpty ? nil : Set(try blobs.map { blob throws(StoreError) in
            try PeerID.fromBlob(blob, "chat member")
        })
        members[chat] = .some(found)
        return found
    }

    private func isDuplicate(_ message: Message, _ db: Database) throws -> Bool {
        if try MessageRecord.exists(db, key: message.id.blob) { return true }
        return try MessageRecord.exists(db, key: [
            "chat_id": message.chat.blob, "author": message.author.blob, "seq": Int64(message.sequence),
        ])
    }

    private mutating func takeLocalNumber(_ chat: ChatID, _ db: Database) throws -> Int64 {
        let next: Int64
        if let cached = nextLocalNumber[chat] {
            next = cached
        } else {
            let max = try Int64.fetchOne(
                db, sql: "SELECT MAX(local_number) FROM messages WHERE chat_id = ?", arguments: [chat.blob])
            next = (max ?? 0) + 1
        }
        nextLocalNumber[chat] = next + 1
        return next
    }

    /// Raises the author's max, and moves the contiguous head over any run of sequences that a
    /// late arrival just joined up.
    private func advanceHead(_ message: Message, _ db: Database) throws {
        let seq = Int64(message.sequence)
        var head = try AuthorHeadRecord.fetchOne(db, key: ["chat_id": message.chat.blob, "author": message.author.blob])
            ?? AuthorHeadRecord(chatId: message.chat.blob, author: message.author.blob, contiguousSeq: 0, maxSeq: 0)
        head.maxSeq = max(head.maxSeq, seq)
        if seq == head.contiguousSeq + 1 {
            var contiguous = seq
            let later = try Int64.fetchCursor(
                db, sql: "SELECT seq FROM messages WHERE chat_id = ? AND author = ? AND seq > ? ORDER BY seq",
                arguments: [message.chat.blob, message.author.blob, seq])
            while let next = try later.next(), next == contiguous + 1 { contiguous = next }
            head.contiguousSeq = contiguous
        }
        try head.save(db)
    }
}
