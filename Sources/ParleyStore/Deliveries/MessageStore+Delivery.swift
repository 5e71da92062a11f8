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
            recorded.merge(try DeliveryRow.recordedDeliveries(of: read.values.filter { $0.state != .received }, db)) { kept, _ in kept }
            var fresh: [(row: DeliveryRow, peer: PeerID)] = []
            var grew = Set<MessageID>()
            for ack in acks {
                guard let row = rows[ack.message], row.state != .received, ack.peer != row.author,
                      try members.contains(ack.peer, in: row.chatId, db),
                      recorded[row.place, default: []].insert(ack.peer).inserted else { continue }
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
                if row.state != .received { awaited[ack.message] = AwaitingAcks.Entry(row: row.moved(to: settled), acknowledged: acknowledged) }
                progress[ack.message] = DeliveryProgress(deliveredTo: acknowledged.count, recipients: others, grew: grew.contains(ack.message))
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

/// What the delivery bookkeeping reads of a message: not the whole row. Each statement takes up to
/// 256 rows (1,024 variables for the insert: SQLite 3.32 or later allows 32,766), since acks arrive
/// for every message sent.
struct DeliveryRow: Sendable {
    /// A message's place in its chat: the key of its deliveries.
    struct Place: Hashable {
        let chatId: Data
        let localNumber: Int64
    }

    let chatId: Data
    let localNumber: Int64
    let author: PeerID
    let state: DeliveryState

    var place: Place { Place(chatId: chatId, localNumber: localNumber) }

    func moved(to state: DeliveryState) -> DeliveryRow {
        DeliveryRow(chatId: chatId, localNumber: localNumber, author: author, state: state)
    }
}

extension DeliveryRow {
    fileprivate static let chunk = 256

    /// The messages among `ids` that are stored, by id.
    fileprivate static func fetchAll(_ ids: Set<MessageID>, _ db: Database) throws -> [MessageID: DeliveryRow] {
        var rows: [MessageID: DeliveryRow] = [:]
        for part in ids.map(\.blob).chunked(chunk) {
            let values = padded(part)
            let statement = try db.cachedStatement(
                sql: "SELECT id, chat_id, local_number, author, state FROM messages WHERE id IN (\(placeholders(values.count)))")
            for row in try Row.fetchAll(statement, arguments: StatementArguments(values)) {
                guard let state = DeliveryState(rawValue: row[4]) else { continue }
                rows[try MessageID.fromBlob(row[0], "message id")] = DeliveryRow(
                    chatId: row[1], localNumber: row[2], author: try PeerID.fromBlob(row[3], "message author"), state: state)
            }
        }
        return rows
    }

    /// Who already acknowledged each of `rows`, by place: one read per chat and chunk.
    fileprivate static func recordedDeliveries(of rows: [DeliveryRow], _ db: Database) throws -> [Place: Set<PeerID>] {
        var recorded: [Place: Set<PeerID>] = [:]
        for (chat, inChat) in Dictionary(grouping: rows, by: \.chatId) {
            for part in inChat.map(\.localNumber).chunked(chunk) {
                let values = padded(part)
                let statement = try db.cachedStatement(
                    sql: "SELECT local_number, peer_id FROM deliveries WHERE chat_id = ? AND local_number IN (\(placeholders(values.count)))")
                for row in try Row.fetchAll(statement, arguments: StatementArguments([chat]) + StatementArguments(values)) {
                    recorded[Place(chatId: chat, localNumber: row[0]), default: []].insert(try PeerID.fromBlob(row[1], "delivery peer"))
                }
            }
        }
        return recorded
    }

    fileprivate static func insertDeliveries(_ fresh: [(row: DeliveryRow, peer: PeerID)], atMillis: Int64, _ db: Database) throws {
        for part in fresh.chunked(chunk) {
            let rows = padded(part)
            let values = Array(repeating: "(?, ?, ?, ?)", count: rows.count).joined(separator: ", ")
            let statement = try db.cachedStatement(
                sql: "INSERT OR IGNORE INTO deliveries (chat_id, local_number, peer_id, delivered_at_ms) VALUES \(values)")
            try DirectBindings.execute(statement) { bindings in
                for (row, peer) in rows {
                    bindings.blob(row.chatId)
                    bindings.integer(row.localNumber)
                    bindings.blob(peer.bytes)
                    bindings.integer(atMillis)
                }
            }
        }
    }

    /// Moves messages to `state` (see `MessageStore.settledState`), found by place: a chat's own
    /// messages take local numbers in order, so a batch's updates land on the same few index pages.
    fileprivate static func setState(_ state: DeliveryState, of places: [Place], _ db: Database) throws {
        for (chat, inChat) in Dictionary(grouping: places, by: \.chatId) {
            for part in inChat.map(\.localNumber).chunked(chunk) {
                let values = padded(part)
                let statement = try db.cachedStatement(
                    sql: "UPDATE messages SET state = ? WHERE chat_id = ? AND local_number IN (\(placeholders(values.count)))")
                try DirectBindings.execute(statement) { bindings in
                    bindings.text(state.rawValue)
                    bindings.blob(chat)
                    for localNumber in values { bindings.integer(localNumber) }
                }
            }
        }
    }

    /// `part` filled up to the next power of two by repeating its last element, so every statement
    /// here has one of nine shapes and stays prepared in the connection's cache (acks often come a
    /// few at a time). A repeat changes nothing: an id twice in `IN (…)`, a row twice under
    /// `INSERT OR IGNORE`.
    private static func padded<Element>(_ part: ArraySlice<Element>) -> [Element] {
        guard let last = part.last else { return [] }
        var count = 1
        while count < part.count { count *= 2 }
        return Array(part) + Array(repeating: last, count: count - part.count)
    }

    private static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }
}

private extension Array {
    func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}

/// Chat membership looked up once per transaction: from the membership cache when it holds the chat
/// (inside a write nothing else changes memberships, so a cached one is current), else from the store.
/// Every member acks every own message, often each in a transaction of its own, so in a chat of 100
/// reading the members each time was a fair share of the recording.
private struct MemberCounts {
    let memberships: MembershipCache
    private var members: [Data: Set<PeerID>] = [:]

    init(memberships: MembershipCache) {
        self.memberships = memberships
    }

    mutating func count(_ chat: Data, _ db: Database) throws -> Int { try load(chat, db).count }

    mutating func contains(_ peer: PeerID, in chat: Data, _ db: Database) throws -> Bool {
        try load(chat, db).contains(peer)
    }

    private mutating func load(_ chat: Data, _ db: Database) throws -> Set<PeerID> {
        if let cached = members[chat] { return cached }
        let peers: Set<PeerID>
        if let membership = memberships.lookup(try ChatID.fromBlob(chat, "chat id")).membership {
            peers = Set(membership.members)
        } else {
            peers = Set(try Data.fetchAll(
                db.cachedStatement(sql: "SELECT peer_id FROM chat_members WHERE chat_id = ?"), arguments: [chat])
                .map { blob throws(StoreError) in try PeerID.fromBlob(blob, "chat member") })
        }
        members[chat] = peers
        return peers
    }
}
