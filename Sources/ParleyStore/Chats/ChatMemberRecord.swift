internal import Foundation
internal import GRDB

/// A row of `chat_members`, copied from the invite so membership checks are an index lookup.
struct ChatMemberRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "chat_members"

    var chatId: Data
    var peerId: Data

    enum CodingKeys: String, CodingKey {
        case chatId = "chat_id"
        case peerId = "peer_id"
    }

    enum Columns {
        static let chatId = Column(CodingKeys.chatId)
        static let peerId = Column(CodingKeys.peerId)
    }
}
