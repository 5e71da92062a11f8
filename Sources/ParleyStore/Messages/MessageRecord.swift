internal import Foundation
internal import GRDB

/// A row of `messages`. `encoded` is the signed wire form and the source of truth; the other message
/// columns are copies of its fields, there to be indexed and queried.
struct MessageRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "messages"

    var id: Data
    var chatId: Data
    var author: Data
    var seq: Int64
    var lamport: Int64
    var timestampMillis: Int64
    var tag: String
    var content: Data
    var encoded: Data
    var localNumber: Int64
    var receivedAtMillis: Int64
    var state: DeliveryState
    /// Set only where it differs from `lamport`: the author's higher clock from an earlier sequence
    /// (kept by the insert path, `InsertBatch.historyClock`, PROTOCOL §11).
    var historyLamport: Int64?

    enum CodingKeys: String, CodingKey {
        case id, author, seq, lamport, tag, content, encoded, state
        case chatId = "chat_id"
        case timestampMillis = "timestamp_ms"
        case localNumber = "local_number"
        case receivedAtMillis = "received_at_ms"
        case historyLamport = "history_lamport"
    }

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let chatId = Column(CodingKeys.chatId)
        static let author = Column(CodingKeys.author)
        static let seq = Column(CodingKeys.seq)
        static let lamport = Column(CodingKeys.lamport)
        static let tag = Column(CodingKeys.tag)
        static let localNumber = Column(CodingKeys.localNumber)
        static let state = Column(CodingKeys.state)
    }
}
