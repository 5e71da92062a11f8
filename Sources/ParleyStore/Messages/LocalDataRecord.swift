internal import Foundation
internal import GRDB

/// A row of `local_data`: a private key/value note on a message (read marks, drafts…). Never sent.
struct LocalDataRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "local_data"

    var messageId: Data
    var key: String
    var value: String

    enum CodingKeys: String, CodingKey {
        case key, value
        case messageId = "message_id"
    }

    enum Columns {
        static let messageId = Column(CodingKeys.messageId)
        static let key = Column(CodingKeys.key)
    }
}
