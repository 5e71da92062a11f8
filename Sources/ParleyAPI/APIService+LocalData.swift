import ParleyNode
import ParleyCore

extension APIService {
    /// Local data requests. A message is named by a unique id prefix in any chat; the node refuses its
    /// own keys (`LocalDataKey.reserved`) to set and delete.
    func handleLocalData(_ request: APIRequest) async throws -> APIResult {
        switch request {
        case let .localGet(message, key):
            let id = try node.resolveMessage(prefix: message, in: nil)
            return Self.ok(LocalDataView(message: id.hex, key: key, value: try node.localData(message: id, key: key)))
        case let .localSet(message, key, value):
            let id = try node.resolveMessage(prefix: message, in: nil)
            try await node.setLocalData(message: id, key: key, value: value)
            return Self.ok(LocalDataView(message: id.hex, key: key, value: value))
        case let .localList(message):
            let id = try node.resolveMessage(prefix: message, in: nil)
            let values = try node.allLocalData(message: id).sorted { $0.key < $1.key }
            return Self.ok(values.map { LocalDataView(message: id.hex, key: $0.key, value: $0.value) })
        case let .localDelete(message, key):
            let id = try node.resolveMessage(prefix: message, in: nil)
            return Self.ok(
                LocalDataView(message: id.hex, key: key, value: try await node.deleteLocalData(message: id, key: key)))
        default:
            throw NodeError.invalid("not a local data request")
        }
    }
}
