internal import Foundation
internal import GRDB

/// A row of `message_refs`: one reference a message carries. The message's chat and tag are copied
/// here so that "votes on this poll" is answered from one index, without touching `messages`.
struct MessageRefRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "message_refs"

    var messageId: Data
    var chatId: Data
    var refId: Data
    var refTag: String
    var msgTag: String

    enum CodingKeys: String, CodingKey {
        case messageId = "message_id"
        case chatId = "chat_id"
        case refId = "ref_id"
        case refTag = "ref_tag"
        case msgTag = "msg_tag"
    }

    enum Columns {
        static let messageId = Column(CodingKeys.messageId)
        static let chatId = Column(CodingKeys.chatId)
        static let refId = Column(CodingKeys.refId)
        static let refTag = Column(CodingKeys.refTag)
        static let msgTag = Column(CodingKeys.msgTag)
    }
}
