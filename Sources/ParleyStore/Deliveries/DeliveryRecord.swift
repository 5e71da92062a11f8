internal import Foundation
internal import GRDB

/// A row of `deliveries`: this member acknowledged this message of ours.
struct DeliveryRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "deliveries"

    /// The message, by its place in its chat (`MessageRecord.localNumber`).
    var chatId: Data
    var localNumber: Int64
    var peerId: Data

    enum CodingKeys: String, CodingKey {
        case chatId = "chat_id"
        case localNumber = "local_number"
        case peerId = "peer_id"
    }

    enum Columns {
        static let chatId = Column(CodingKeys.chatId)
        static let localNumber = Column(CodingKeys.localNumber)
        static let peerId = Column(CodingKeys.peerId)
    }
}
