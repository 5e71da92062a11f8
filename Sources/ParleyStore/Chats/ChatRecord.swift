internal import Foundation
internal import GRDB

/// A row of `chats`: a joined chat and its signed invite, the source of truth for everything else in the row.
struct ChatRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "chats"

    var id: Data
    var creator: Data
    var title: String
    var createdAtMillis: Int64
    /// The signed invite encoding: `ChatInvite(decoding:)` rebuilds and re-verifies it.
    var invite: Data
    var joinedAtMillis: Int64
    var kind: String
    var keyed: Bool
    var epoch: Int64
    var epochMessageId: Data?

    enum CodingKeys: String, CodingKey {
        case id, creator, title, invite, kind, keyed, epoch
        case epochMessageId = "epoch_message_id"
        case createdAtMillis = "created_at_ms"
        case joinedAtMillis = "joined_at_ms"
    }

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let title = Column(CodingKeys.title)
        static let epoch = Column(CodingKeys.epoch)
        static let epochMessageId = Column(CodingKeys.epochMessageId)
    }
}
