internal import Foundation
internal import GRDB

/// A row of `chat_keys`: a key this node holds for one epoch of a chat. Private like the identity key.
struct ChatKeyRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "chat_keys"

    var chatId: Data
    var epoch: Int64
    var key: Data

    enum CodingKeys: String, CodingKey {
        case epoch, key
        case chatId = "chat_id"
    }
}
