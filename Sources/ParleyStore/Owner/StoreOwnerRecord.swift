internal import Foundation
internal import GRDB

/// The row of `store_owner` (at most one, `id` 1): the identity whose chats and keys the store holds.
struct StoreOwnerRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "store_owner"
    /// The schema allows this id only.
    static let onlyID: Int64 = 1

    var id: Int64 = onlyID
    var peerId: Data

    enum CodingKeys: String, CodingKey {
        case id
        case peerId = "peer_id"
    }
}
