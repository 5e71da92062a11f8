internal import Foundation
internal import GRDB

/// A row of `chat_epoch_members`: a member of one epoch. A message sealed in that epoch counts only
/// if its author is one.
struct ChatEpochMemberRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "chat_epoch_members"

    var chatId: Data
    var epoch: Int64
    var peerId: Data

    enum CodingKeys: String, CodingKey {
        case epoch
        case chatId = "chat_id"
        case peerId = "peer_id"
    }

    enum Columns {
        static let chatId = Column(CodingKeys.chatId)
        static let epoch = Column(CodingKeys.epoch)
    }
}
