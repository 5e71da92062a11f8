internal import Foundation
internal import GRDB

/// A row of `chat_acceptances`: this member acknowledged the chat's invite to this node, so the
/// creator's node no longer waits for it.
struct ChatAcceptanceRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "chat_acceptances"

    var chatId: Data
    var peerId: Data

    enum CodingKeys: String, CodingKey {
        case chatId = "chat_id"
        case peerId = "peer_id"
    }
}
