internal import Foundation
internal import GRDB

/// A row of `chat_epochs`: a membership epoch this node has learned, and the change that won it.
struct ChatEpochRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "chat_epochs"

    var chatId: Data
    var epoch: Int64
    /// The "Membership" message that set it; nil for epoch 0, set by the invite.
    var messageId: Data?

    enum CodingKeys: String, CodingKey {
        case epoch
        case chatId = "chat_id"
        case messageId = "message_id"
    }
}
