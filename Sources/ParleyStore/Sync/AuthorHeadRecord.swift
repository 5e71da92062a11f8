internal import Foundation
internal import GRDB

/// A row of `author_heads`: how far each author's sequence is known in a chat, kept up to date on
/// insert so sync never has to aggregate `messages`.
struct AuthorHeadRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "author_heads"

    var chatId: Data
    var author: Data
    /// Every sequence number from 1 to this one is stored.
    var contiguousSeq: Int64
    /// The highest sequence number stored, perhaps after gaps.
    var maxSeq: Int64

    enum CodingKeys: String, CodingKey {
        case author
        case chatId = "chat_id"
        case contiguousSeq = "contiguous_seq"
        case maxSeq = "max_seq"
    }

    enum Columns {
        static let chatId = Column(CodingKeys.chatId)
        static let author = Column(CodingKeys.author)
    }
}
