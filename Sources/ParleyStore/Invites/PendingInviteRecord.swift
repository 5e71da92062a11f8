internal import Foundation
internal import GRDB

/// A row of `pending_invites`: an invite to a chat not joined, held for the user (`pending`) or kept
/// after the user refused it (`declined`), so the same invite pushed again stays declined.
struct PendingInviteRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "pending_invites"

    var chatId: Data
    /// The signed invite encoding: `ChatInvite(decoding:)` rebuilds and re-verifies it.
    var invite: Data
    var sender: Data
    var receivedAtMillis: Int64
    /// A `HeldInvite.State`: "pending" or "declined".
    var state: String
    /// Insertion order, 1, 2, 3…: the oldest is dropped first, with no tie on time.
    var seq: Int64
    /// Who signed the invite; nil only for a row from before the creator was recorded whose invite no
    /// longer decodes.
    var creator: Data?

    enum CodingKeys: String, CodingKey {
        case invite, sender, state, seq, creator
        case chatId = "chat_id"
        case receivedAtMillis = "received_at"
    }

    enum Columns {
        static let chatId = Column(CodingKeys.chatId)
        static let state = Column(CodingKeys.state)
        static let seq = Column(CodingKeys.seq)
    }
}
