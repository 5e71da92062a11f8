internal import Foundation
internal import GRDB

/// A row of `read_markers`: how far this node's user has read a chat.
struct ReadMarkerRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "read_markers"

    var chatId: Data
    /// Every message up to this local number is read; it never moves back.
    var localNumber: Int64

    enum CodingKeys: String, CodingKey {
        case chatId = "chat_id"
        case localNumber = "local_number"
    }
}
