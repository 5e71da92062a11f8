internal import Foundation
internal import GRDB
import ParleyCore
import ParleyCrypto

extension MessageRecord {
    /// A new row for `message`. The caller has checked that sequence and Lamport fit in an Int64.
    init(_ message: Message, localNumber: Int64, receivedAtMillis: Int64, state: DeliveryState) {
        self.init(
            id: message.id.blob, chatId: message.chat.blob, author: message.author.blob,
            seq: Int64(message.sequence), lamport: Int64(message.lamport), timestampMillis: message.timestampMillis,
            tag: message.tag.rawValue, content: Data(message.content), encoded: Data(message.encoded),
            localNumber: localNumber, receivedAtMillis: receivedAtMillis, state: state)
    }

    /// Rebuilds the signed message from its wire bytes, and checks they still hash to the row's id.
    func decodedMessage() throws(StoreError) -> Message {
        let message: Message
        do { message = try Message(decoding: Array(encoded)) } catch {
            throw .corrupt("message \(Data(id).hexPrefix) does not decode: \(error)")
        }
        guard message.id.blob == id else { throw .corrupt("message \(Data(id).hexPrefix) does not match its id") }
        return message
    }

    func storedMessage(deliveredTo: Int) throws(StoreError) -> StoredMessage {
        StoredMessage(
            message: try decodedMessage(), localNumber: localNumber, receivedAtMillis: receivedAtMillis,
            state: state, deliveredTo: deliveredTo)
    }
}

extension MessageStore {
    /// Every stored-message query selects the row plus its delivery count (from the `deliveries` primary key).
    static let storedMessageSelection =
        "m.*, (SELECT COUNT(*) FROM deliveries d WHERE d.message_id = m.id) AS delivered_to FROM messages m"

    /// Runs `SELECT <stored message> <tail>` where `tail` filters and orders `messages m`.
    static func fetchStored(_ db: Database, _ tail: String, _ arguments: StatementArguments) throws -> [StoredMessage] {
        let rows = try Row.fetchCursor(db, sql: "SELECT \(storedMessageSelection) \(tail)", arguments: arguments)
        var result: [StoredMessage] = []
        while let row = try rows.next() {
            result.append(try MessageRecord(row: row).storedMessage(deliveredTo: row["delivered_to"]))
        }
        return result
    }
}

extension Data {
    /// The first bytes in hex, for error messages about rows whose id may itself be bad.
    var hexPrefix: String { Hex.encode(prefix(6)) }
}
