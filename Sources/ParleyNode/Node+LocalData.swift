public import ParleyCore
import ParleyStore

/// Local data: values this node keeps on a message and never sends (notes, stars, drafts). The keys
/// in `LocalDataKey.reserved` are the node's own; front ends read them but cannot change them.
extension Node {
    /// The value of `key` on a message; nil when unset.
    public func localData(message: MessageID, key: String) throws -> String? {
        try store.localData(message: message, key: key)
    }

    /// Every local value on a message, by key.
    public func allLocalData(message: MessageID) throws -> [String: String] { try store.allLocalData(message: message) }

    /// Sets (or, with nil, removes) local data on a message. Refuses the node's own keys.
    public func setLocalData(message: MessageID, key: String, value: String?) async throws {
        try Self.requireUserKey(key, value == nil ? "deleted" : "set")
        try await store.setLocalData(message: message, key: key, value: value)
    }

    /// Removes `key` from a message and returns the value it had (nil when it had none). Refuses the
    /// node's own keys.
    public func deleteLocalData(message: MessageID, key: String) async throws -> String? {
        try Self.requireUserKey(key, "deleted")
        return try await store.deleteLocalData(message: message, key: key)
    }

    private static func requireUserKey(_ key: String, _ verb: String) throws {
        guard let purpose = LocalDataKey.purpose(of: key) else { return }
        throw NodeError.invalid("'\(key)' is Parley's own local data (\(purpose)); it cannot be \(verb) by hand")
    }
}
