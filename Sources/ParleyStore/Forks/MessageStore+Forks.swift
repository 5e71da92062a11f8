internal import Foundation
internal import GRDB
public import ParleyCore
public import ParleyCrypto

/// Fork proofs (PROTOCOL.md §4.4): what this node can prove about authors who signed two histories.
extension MessageStore {
    /// Keeps `proof` when it is the first for its (chat, author) or shows an earlier forked sequence
    /// than the one held; says whether it was kept (the rules and the views then change).
    /// The chat must be joined.
    public func recordFork(_ proof: ForkProof, atMillis: Int64) async throws(StoreError) -> Bool {
        let (chat, author, sequence, bytes) = (
            proof.chat.blob, proof.author.blob, Int64(clamping: proof.sequence), Data(proof.encoded)
        )
        return try await write(
            "recording a fork of \(proof.author.shortHex) in chat \(proof.chat.shortHex)", keepsMemberships: true
        ) { db in
            guard try ChatRecord.exists(db, key: chat) else { return false }
            if let held = try ForkProofRecord.fetchOne(db, key: ["chat_id": chat, "author": author]),
                held.seq <= sequence
            {
                return false
            }
            try ForkProofRecord(chatId: chat, author: author, seq: sequence, proof: bytes, foundAtMillis: atMillis)
                .save(db)
            return true
        }
    }

    /// The chat's forked authors and where each fork starts: the input of every rule that counts messages.
    public func forks(chat: ChatID) throws(StoreError) -> ChatForks {
        let rows = try read("reading the forks of chat \(chat.shortHex)") { db in
            try Row.fetchAll(
                db.cachedStatement(sql: "SELECT author, seq FROM fork_proofs WHERE chat_id = ?"), arguments: [chat.blob]
            )
        }
        var forkedFrom: [PeerID: UInt64] = [:]
        for row in rows { forkedFrom[try PeerID.fromBlob(row[0], "forked author")] = UInt64(row[1] as Int64) }
        return ChatForks(forkedFrom: forkedFrom)
    }

    /// The proofs held for the chat, as their encodings with their author and forked sequence, to send
    /// to members that lack them. They were checked when kept, so they are not decoded again.
    public func forkProofEncodings(chat: ChatID) throws(StoreError) -> [(
        author: PeerID, sequence: UInt64, encoded: [UInt8]
    )] {
        // Asked beside every sync request: the statement stays prepared.
        let records = try read("reading the fork proofs of chat \(chat.shortHex)") { db in
            try ForkProofRecord.fetchAll(
                db.cachedStatement(sql: "SELECT * FROM fork_proofs WHERE chat_id = ? ORDER BY author"),
                arguments: [chat.blob])
        }
        return try records.map { record throws(StoreError) in
            (try PeerID.fromBlob(record.author, "forked author"), UInt64(record.seq), [UInt8](record.proof))
        }
    }

    /// Every fork proven in any joined chat, for `status`.
    public func allForks() throws(StoreError) -> [(
        chat: ChatID, author: PeerID, sequence: UInt64, foundAtMillis: Int64
    )] {
        let records = try read("reading fork proofs") { db in
            try ForkProofRecord.order(ForkProofRecord.Columns.chatId, ForkProofRecord.Columns.author).fetchAll(db)
        }
        return try records.map { record throws(StoreError) in
            (
                try ChatID.fromBlob(record.chatId, "chat id"), try PeerID.fromBlob(record.author, "forked author"),
                UInt64(record.seq),
                record.foundAtMillis
            )
        }
    }

    /// What a sync request cannot say with sequences alone (`ChainTops`): the id held at each author's
    /// highest sequence, and the forks proven here.
    public func chainTops(chat: ChatID) throws(StoreError) -> ChainTops {
        let rows = try read("reading the chain tops of chat \(chat.shortHex)") { db in
            // One lookup of the (chat, author, seq) key per author: as a join, SQLite may choose to scan
            // the messages and probe the heads, which read the whole chat for every sync request.
            try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT h.author, h.max_seq,
                               (SELECT m.id FROM messages m WHERE m.chat_id = h.chat_id AND m.author = h.author AND m.seq = h.max_seq)
                        FROM author_heads h WHERE h.chat_id = ? AND h.max_seq > 0
                        """), arguments: [chat.blob])
        }
        var tops: [PeerID: ChainTops.Top] = [:]
        for row in rows {
            guard let id = row[2] as Data? else { continue }
            tops[try PeerID.fromBlob(row[0], "author")] = ChainTops.Top(
                sequence: UInt64(row[1] as Int64), id: try MessageID.fromBlob(id, "message id"))
        }
        let forks = try forks(chat: chat).forkedFrom
        // For a forked author, what is still compared is the slot below its fork: two branches may have
        // split lower than the slot first proven (§4.4), and only the lowest fork counts.
        for (author, sequence) in forks {
            tops[author] =
                try sequence > 1
                ? messageID(chat: chat, author: author, sequence: sequence - 1).map {
                    ChainTops.Top(sequence: sequence - 1, id: $0)
                } : nil
        }
        // One frame in one datagram: past `ChainTops.maxTops` authors, the rest wait for a later round.
        let kept = Set(tops.keys.sorted().prefix(ChainTops.maxTops))
        return ChainTops(tops: tops.filter { kept.contains($0.key) }, forks: forks)
    }

    /// The author's stored messages from `sequence` up, decoded, at most `limit`, in sequence order:
    /// where a fork proof's branch is read from.
    public func storedRun(chat: ChatID, author: PeerID, from sequence: UInt64, limit: Int) throws(StoreError)
        -> [Message]
    {
        guard sequence <= UInt64(Int64.max) else { return [] }
        let upper = sequence + UInt64(max(limit, 1) - 1)
        return try encodings(chat: chat, author: author, in: [sequence...min(upper, UInt64(Int64.max))], limit: limit)
            .map { stored throws(StoreError) in
                do { return try Message(decoding: stored.encoded) } catch {
                    throw .corrupt("message \(stored.id.shortHex) does not decode")
                }
            }
    }
}

extension MessageStore {
    /// The SQL condition on a message row `m` that its author has no proven fork at or below its
    /// sequence (PROTOCOL.md §4.4): what history and the chat list show.
    static let notForked =
        "NOT EXISTS (SELECT 1 FROM fork_proofs f WHERE f.chat_id = m.chat_id AND f.author = m.author AND f.seq <= m.seq)"
}
