internal import Foundation
internal import GRDB
public import ParleyCore

// The store's owner: the identity whose chats and keys it holds (see `createV6StoreOwner`).
extension MessageStore {
    /// The identity that owns this store: the one already recorded, or `peer` if none was, which is
    /// then recorded. One transaction, so two nodes starting at once cannot both become the owner.
    /// A caller compares the result with its own key and refuses to run on a store it does not own.
    public func claimOwner(_ peer: PeerID) async throws(StoreError) -> PeerID {
        let blob = try await write("recording the store's owner", keepsMemberships: true) { db -> Data in
            if let owner = try StoreOwnerRecord.fetchOne(db, key: StoreOwnerRecord.onlyID) { return owner.peerId }
            try StoreOwnerRecord(peerId: peer.blob).insert(db)
            return peer.blob
        }
        return try PeerID.fromBlob(blob, "store owner")
    }

    /// The identity recorded as this store's owner; nil until a node has started on it.
    public func owner() throws(StoreError) -> PeerID? {
        let blob = try read("reading the store's owner") { db in
            try StoreOwnerRecord.fetchOne(db, key: StoreOwnerRecord.onlyID)?.peerId
        }
        return try blob.map { blob throws(StoreError) in try PeerID.fromBlob(blob, "store owner") }
    }
}
