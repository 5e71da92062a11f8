internal import Foundation
internal import GRDB

/// A row of `deliveries`: this member acknowledged this message of ours.
struct DeliveryRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "deliveries"

    var messageId: Data
    var peerId: Data

    enum CodingKeys: String, CodingKey {
        case messageId = "message_id"
        case peerId = "peer_id"
    }

    enum Columns {
        static let messageId = Column(CodingKeys.messageId)
        static let peerId = Column(CodingKeys.peerId)
    }
}
