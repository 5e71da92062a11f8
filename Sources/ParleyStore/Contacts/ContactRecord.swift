internal import Foundation
internal import GRDB

/// A row of `contacts`. The name is unique ignoring case (`COLLATE NOCASE` in the schema).
struct ContactRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "contacts"

    var peerId: Data
    var name: String
    /// "HOST:PORT", as `PeerAddress.description` writes it.
    var address: String?

    enum CodingKeys: String, CodingKey {
        case name, address
        case peerId = "peer_id"
    }

    enum Columns {
        static let peerId = Column(CodingKeys.peerId)
        static let name = Column(CodingKeys.name)
    }
}
