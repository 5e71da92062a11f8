internal import Foundation
internal import GRDB
public import ParleyCore

extension MessageStore {
    /// Own messages handed to the transport: pending → sent (→ delivered if no one else is in the chat).
    public func markSent(_ ids: [MessageID]) async throws(StoreError) {
        if ids.isEmpty { return }
        try await write("marking \(ids.count) message(s) sent") { db in
            var members = MemberCounts()
            for id in ids {
                guard let record = try MessageRecord.fetchOne(db, key: id.blob), record.state == .pending else { continue }
                let delivered = try DeliveryRecord.filter { $0.messageId == id.blob }.fetchCount(db)
                let others = try members.count(record.chatId, db) - 1
                try Self.setState(of: record, to: Self.settledState(record.state, sent: true, delivered: delivered, others: others), db)
            }
        }
    }

    /// Records acknowledgements of own messages in one transaction (repeats are harmless) and returns
    /// each known message's delivered count. A message is delivered once every other member acknowledged
    /// it. Acks from non-members or from the author, and for unknown or others' messages, are ignored.
    public func recordDeliveries(_ acks: [(message: MessageID, peer: PeerID)]) async throws(StoreError) -> [MessageID: Int] {
        if acks.isEmpty { return [:] }
        return try await write("recording \(acks.count) acknowledgement(s)") { db in
            var members = MemberCounts()
            var counts: [MessageID: Int] = [:]
            for ack in acks {
                guard let record = try MessageRecord.fetchOne(db, key: ack.message.blob) else { continue }
                if record.state != .received, ack.peer.blob != record.author,
                   try members.contains(ack.peer, in: record.chatId, db) {
                    try DeliveryRecord(messageId: record.id, peerId: ack.peer.blob).insert(db, onConflict: .ignore)
                }
                let delivered = try DeliveryRecord.filter { $0.messageId == record.id }.fetchCount(db)
                let others = try members.count(record.chatId, db) - 1
                try Self.setState(of: record, to: Self.settledState(record.state, sent: false, delivered: delivered, others: others), db)
                counts[ack.message] = delivered
            }
            return counts
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
                    db, DeliveryRecord.select(DeliveryRecord.Columns.peerId).filter { $0.messageId == record.id }))
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
    static func settledState(_ current: DeliveryState, sent: Bool, delivered: Int, others: Int) -> DeliveryState {
        switch current {
        case .received, .delivered: return current
        case .pending, .sent:
            // An acknowledgement proves it was sent, even if markSent has not run yet.
            guard current == .sent || sent || delivered > 0 else { return .pending }
            return delivered >= others ? .delivered : .sent
        }
    }

    private static func setState(of record: MessageRecord, to state: DeliveryState, _ db: Database) throws {
        guard state != record.state else { return }
        try MessageRecord.filter { $0.id == record.id }.updateAll(db) { $0.state.set(to: state.rawValue) }
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
            db, ChatMemberRecord.select(ChatMemberRecord.Columns.peerId).filter { $0.chatId == chat }))
        members[chat] = peers
        return peers
    }
}
