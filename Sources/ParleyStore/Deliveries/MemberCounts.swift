internal import Foundation
internal import GRDB
import ParleyCore

/// Chat membership looked up once per transaction: from the membership cache when it holds the chat
/// (inside a write nothing else changes memberships, so a cached one is current), else from the store.
/// Every member acks every own message, often each in a transaction of its own, so in a chat of 100
/// reading the members each time was a fair share of the recording.
struct MemberCounts {
    let memberships: MembershipCache
    private var members: [Data: Set<PeerID>] = [:]

    init(memberships: MembershipCache) {
        self.memberships = memberships
    }

    mutating func count(_ chat: Data, _ db: Database) throws -> Int { try load(chat, db).count }

    mutating func contains(_ peer: PeerID, in chat: Data, _ db: Database) throws -> Bool {
        try load(chat, db).contains(peer)
    }

    private mutating func load(_ chat: Data, _ db: Database) throws -> Set<PeerID> {
        if let cached = members[chat] { return cached }
        let peers: Set<PeerID>
        if let membership = memberships.lookup(try ChatID.fromBlob(chat, "chat id")).membership {
            peers = Set(membership.members)
        } else {
            peers = Set(
                try Data.fetchAll(
                    db.cachedStatement(sql: "SELECT peer_id FROM chat_members WHERE chat_id = ?"), arguments: [chat]
                )
                .map { blob throws(StoreError) in try PeerID.fromBlob(blob, "chat member") })
        }
        members[chat] = peers
        return peers
    }
}
