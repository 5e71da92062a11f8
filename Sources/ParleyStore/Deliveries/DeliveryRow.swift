internal import Foundation
internal import GRDB
import ParleyCore
import ParleyCrypto

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
    private static let chunk = 256

    /// The messages among `ids` that are stored, by id.
    static func fetchAll(_ ids: Set<MessageID>, _ db: Database) throws -> [MessageID: DeliveryRow] {
        var rows: [MessageID: DeliveryRow] = [:]
        for part in ids.map(\.blob).chunked(chunk) {
            let values = padded(part)
            let statement = try db.cachedStatement(
                sql:
                    "SELECT id, chat_id, local_number, author, state FROM messages WHERE id IN (\(placeholders(values.count)))"
            )
            for row in try Row.fetchAll(statement, arguments: StatementArguments(values)) {
                guard let state = DeliveryState(rawValue: row[4]) else { continue }
                rows[try MessageID.fromBlob(row[0], "message id")] = DeliveryRow(
                    chatId: row[1], localNumber: row[2], author: try PeerID.fromBlob(row[3], "message author"),
                    state: state)
            }
        }
        return rows
    }

    /// Who already acknowledged each of `rows`, by place: one read per chat and chunk.
    static func recordedDeliveries(of rows: [DeliveryRow], _ db: Database) throws -> [Place: Set<PeerID>] {
        var recorded: [Place: Set<PeerID>] = [:]
        for (chat, inChat) in Dictionary(grouping: rows, by: \.chatId) {
            for part in inChat.map(\.localNumber).chunked(chunk) {
                let values = padded(part)
                let statement = try db.cachedStatement(
                    sql:
                        "SELECT local_number, peer_id FROM deliveries WHERE chat_id = ? AND local_number IN (\(placeholders(values.count)))"
                )
                for row in try Row.fetchAll(
                    statement, arguments: StatementArguments([chat]) + StatementArguments(values))
                {
                    recorded[Place(chatId: chat, localNumber: row[0]), default: []].insert(
                        try PeerID.fromBlob(row[1], "delivery peer"))
                }
            }
        }
        return recorded
    }

    static func insertDeliveries(_ fresh: [(row: DeliveryRow, peer: PeerID)], atMillis: Int64, _ db: Database) throws {
        for part in fresh.chunked(chunk) {
            let rows = padded(part)
            let values = Array(repeating: "(?, ?, ?, ?)", count: rows.count).joined(separator: ", ")
            let statement = try db.cachedStatement(
                sql:
                    "INSERT OR IGNORE INTO deliveries (chat_id, local_number, peer_id, delivered_at_ms) VALUES \(values)"
            )
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
    static func setState(_ state: DeliveryState, of places: [Place], _ db: Database) throws {
        for (chat, inChat) in Dictionary(grouping: places, by: \.chatId) {
            for part in inChat.map(\.localNumber).chunked(chunk) {
                let values = padded(part)
                let statement = try db.cachedStatement(
                    sql:
                        "UPDATE messages SET state = ? WHERE chat_id = ? AND local_number IN (\(placeholders(values.count)))"
                )
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
