internal import Foundation
internal import GRDB
public import ParleyCore

extension MessageStore {
    /// Records acknowledgements of own messages in one transaction (repeats are harmless), each with the
    /// time its first ack arrived, and returns where each known message stands. A message is delivered
    /// once every other member acknowledged it. Acks from non-members or from the author, and for
    /// unknown or others' messages, are ignored.
    public func recordDeliveries(
        _ acks: [(message: MessageID, peer: PeerID)], atMillis: Int64
    ) async throws(StoreError) -> [MessageID: DeliveryProgress] {
        if acks.isEmpty { return [:] }
        return try await write("recording \(acks.count) acknowledgement(s)", keepsMemberships: true) { db in
            var members = MemberCounts()
            var progress: [MessageID: DeliveryProgress] = [:]
            let insertDelivery = try db.cachedStatement(
                sql: "INSERT OR IGNORE INTO deliveries (chat_id, local_number, peer_id, delivered_at_ms) VALUES (?, ?, ?, ?)")
            for ack in acks {
                guard let row = try DeliveryRow.fetch(ack.message.blob, db) else { continue }
                var grew = false
                if row.state != .received, ack.peer.blob != row.author,
                   try members.contains(ack.peer, in: row.chatId, db) {
                    try insertDelivery.execute(arguments: [row.chatId, row.localNumber, ack.peer.blob, atMillis])
                    grew = db.changesCount > 0
                }
                let delivered = try row.deliveredCount(db)
                let others = try members.count(row.chatId, db) - 1
                try row.settle(delivered: delivered, others: others, db)
                let earlier = progress[ack.message]?.grew ?? false
                progress[ack.message] = DeliveryProgress(deliveredTo: delivered, recipients: others, grew: grew || earlier)
            }
            return progress
        }
    }

    /// Own messages not yet acknowledged by every other member, with who is missing: what to
    /// retransmit after a restart. Ordered by chat, then local number.
    public func undelivered(author: PeerID) throws(StoreError) -> [(message: Message, missing: [PeerID])] {
        let rows = try read("listing undelivered messages") { db in
            var members: [Data: [Data]] = [:]
            let records = try MessageRecord
                .filter { $0.author == author.blob && [DeliveryState.pending.rawValue, DeliveryState.sent.rawValue].contains($0.state) }
                .order(MessageRecord.Columns.chatId, MessageRecord.Columns.localNumber)
                .fetchAll(db)
            return try records.map { record in
                if members[record.chatId] == nil {
                    members[record.chatId] = try Data.fetchAll(
                        db, ChatMemberRecord.select(ChatMemberRecord.Columns.peerId).filter { $0.chatId == record.chatId })
                }
                let acked = Set(try Data.fetchAll(
                    db, DeliveryRecord.select(DeliveryRecord.Columns.peerId).filter { $0.chatId == record.chatId && $0.localNumber == record.localNumber }))
                let missing = (members[record.chatId] ?? []).filter { $0 != record.author && !acked.contains($0) }
                return (record, missing)
            }
        }
        var result: [(message: Message, missing: [PeerID])] = []
        for (record, missing) in rows where !missing.isEmpty {
            let peers = try missing.map { blob throws(StoreError) in try PeerID.fromBlob(blob, "chat member") }
            result.append((try record.decodedMessage(), peers))
        }
        return result
    }

    /// Own messages move pending → sent → delivered and never back; others' stay received.
    static func settledState(_ current: DeliveryState, delivered: Int, others: Int) -> DeliveryState {
        switch current {
        case .received, .delivered: return current
        case .pending, .sent:
            // An acknowledgement proves it was sent, even if it was stored pending.
            guard current == .sent || delivered > 0 else { return .pending }
            return delivered >= others ? .delivered : .sent
        }
    }
}

/// Where an own message stands after a batch of acks.
public struct DeliveryProgress: Hashable, Sendable {
    /// Members that acknowledged it.
    public let deliveredTo: Int
    /// Members other than the author.
    public let recipients: Int
    /// Whether this batch added an acknowledgement.
    public let grew: Bool

    public init(deliveredTo: Int, recipients: Int, grew: Bool) {
        self.deliveredTo = deliveredTo
        self.recipients = recipients
        self.grew = grew
    }
}

/// What the delivery bookkeeping reads of a message: not the whole row. Every statement here is
/// prepared once per connection, since acks arrive for every message sent.
private struct DeliveryRow {
    let id: Data
    let chatId: Data
    let localNumber: Int64
    let author: Data
    let state: DeliveryState

    static func fetch(_ id: Data, _ db: Database) throws -> DeliveryRow? {
        let statement = try db.cachedStatement(sql: "SELECT chat_id, local_number, author, state FROM messages WHERE id = ?")
        guard let row = try Row.fetchOne(statement, arguments: [id]),
              let state = DeliveryState(rawValue: row[3]) else { return nil }
        return DeliveryRow(id: id, chatId: row[0], localNumber: row[1], author: row[2], state: state)
    }

    func deliveredCount(_ db: Database) throws -> Int {
        try Int.fetchOne(
            db.cachedStatement(sql: "SELECT COUNT(*) FROM deliveries WHERE chat_id = ? AND local_number = ?"), arguments: [chatId, localNumber]) ?? 0
    }

    /// Moves the state forward (see `settledState`); writes only when it changes.
    @discardableResult
    func settle(delivered: Int, others: Int, _ db: Database) throws -> DeliveryState {
        let settled = MessageStore.settledState(state, delivered: delivered, others: others)
        guard settled != state else { return settled }
        try db.cachedStatement(sql: "UPDATE messages SET state = ? WHERE id = ?").execute(arguments: [settled.rawValue, id])
        return settled
    }
}

/// Chat membership looked up once per transaction.
private struct MemberCounts {
    private var members: [Data: Set<Data>] = [:]

    mutating func count(_ chat: Data, _ db: Database) throws -> Int { try load(chat, db).count }

    mutating func contains(_ peer: PeerID, in chat: Data, _ db: Database) throws -> Bool {
        try load(chat, db).contains(peer.blob)
    }

    private mutating func load(_ chat: Data, _ db: Database) throws -> Set<Data> {
        if let cached = members[chat] { return cached }
        let peers = Set(try Data.fetchAll(
            db.cachedStatement(sql: "SELECT peer_id FROM chat_members WHERE chat_id = ?"), arguments: [chat]))
        members[chat] = peers
        return peers
    }
}
