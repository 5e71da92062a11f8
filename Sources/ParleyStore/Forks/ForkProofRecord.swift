internal import Foundation
internal import GRDB

/// A row of `fork_proofs`: per (chat, author), the proof with the lowest forked sequence held
/// (PROTOCOL.md §4.4).
struct ForkProofRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "fork_proofs"

    var chatId: Data
    var author: Data
    /// The sequence both branches hold a message at: the author's messages count for nothing from here on.
    var seq: Int64
    /// The proof's encoding, checked when it was kept.
    var proof: Data
    var foundAtMillis: Int64

    enum CodingKeys: String, CodingKey {
        case author, seq, proof
        case chatId = "chat_id"
        case foundAtMillis = "found_at_ms"
    }

    enum Columns {
        static let chatId = Column(CodingKeys.chatId)
        static let author = Column(CodingKeys.author)
    }
}
