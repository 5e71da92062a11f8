internal import Foundation
internal import GRDB
public import ParleyCore
public import ParleyCrypto

extension MessageStore {
    /// Records acknowledgements of own messages in one transaction (repeats are harmless), each with the
    /// time its first ack arrived, and returns where each known message stands. A message is delivered
    /// once every other member acknowledged it. Acks from non-members or from the author, and for
    /// unknown or others' messages, are ignored.
    ///
    /// Acks arrive for every message sent, so the batch is handled set by set rather than ack by ack:
    /// its messages and their recorded deliveries are read with one statement per few hundred, the new
    /// deliveries written the same way, and the states that move updated with one statement each.
    public func recordDeliveries(
        _ acks: [(message: MessageID, peer: PeerID)], atMillis: Int64
    ) async throws(StoreError) -> [MessageID: DeliveryProgress] {
        if acks.isEmpty { return [:] }
        return try await write("recording \(acks.count) acknowledgement(s)", keepsMemberships: true) { db in
            var members = MemberCounts(memberships: membershipCache)
            let ids = Set(acks.map(\.message))
            // Own messages still awaited are known without a read; the rest (others' messages, own
            // ones from before a restart) are read by id.
            let cached = awaitingAcks.lookup(ids)
            var rows = cached.mapValues(\.row)
            var recorded = Dictionary(uniqueKeysWithValues: cached.values.map { ($0.row.place, $0.acknowledged) })
            let read = try DeliveryRow.fetchAll(ids.subtracting(cached.keys), db)
            rows.merge(read) { kept, _ in kept }
            recorded.merge(try DeliveryRow.recordedDeliveries(of: read.values.filter { $0.state != .received }, db)) {
                kept, _ in kept
            }
            var fresh: [(row: DeliveryRow, peer: PeerID)] = []
            var grew = Set<MessageID>()
            for ack in acks {
                guard let row = rows[ack.message], row.state != .received, ack.peer != row.author,
                    try members.contains(ack.peer, in: row.chatId, db),
                    recorded[row.place, default: []].insert(ack.peer).inserted
                else { continue }
                fresh.append((row, ack.peer))
                grew.insert(ack.message)
            }
            try DeliveryRow.insertDeliveries(fresh, atMillis: atMillis, db)
            var progress: [MessageID: DeliveryProgress] = [:]
            var moves: [DeliveryState: [DeliveryRow.Place]] = [:]
            var awaited: [MessageID: AwaitingAcks.Entry?] = [:]
            for ack in acks where progress[ack.message] == nil {
                guard let row = rows[ack.message] else { continue }
                let acknowledged = recorded[row.place] ?? []
                let others = try members.count(row.chatId, db) - 1
                let settled = MessageStore.settledState(row.state, delivered: acknowledged.count, others: others)
                if settled != row.state { moves[settled, default: []].append(row.place) }
                if row.state != .received {
                    awaited[ack.message] = AwaitingAcks.Entry(row: row.moved(to: settled), acknowledged: acknowledged)
                }
                progress[ack.message] = DeliveryProgress(
                    deliveredTo: acknowledged.count, recipients: others, grew: grew.contains(ack.message))
            }
            for (state, places) in moves { try DeliveryRow.setState(state, of: places, db) }
            awaitingAcks.update(awaited, in: db)
            return progress
        }
    }

    /// Own messages not yet acknowledged by every other member, with who is missing: what to
    /// retransmit after a restart. Ordered by chat, then local number.
    public func undelivered(author: PeerID) throws(StoreError) -> [(message: Message, missing: [PeerID])] {
        let rows = try read("listing undelivered messages") { db in
            var members: [Data: [Data]] = [:]
            let records =
                try MessageRecord
                .filter {
                    $0.author == author.blob
                        && [DeliveryState.pending.rawValue, DeliveryState.sent.rawValue].contains($0.state)
                }
                .order(MessageRecord.Columns.chatId, MessageRecord.Columns.localNumber)
                .fetchAll(db)
            return try records.map { record in
                if members[record.chatId] == nil {
                    members[record.chatId] = try Data.fetchAll(
                        db,
                        ChatMemberRecord.select(ChatMemberRecord.Columns.peerId).filter { $0.chatId == record.chatId })
                }
                let acked = Set(
                    try Data.fetchAll(
                        db,
                        DeliveryRecord.select(DeliveryRecord.Columns.peerId).filter {
                            $0.chatId == record.chatId && $0.localNumber == record.localNumber
                        }))
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
