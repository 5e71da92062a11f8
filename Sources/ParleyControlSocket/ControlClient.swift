import Foundation
public import ParleyAPI

/// Talks to a running node over its control socket (`DIR/control.sock`), one JSON line each way.
public struct ControlClient: Sendable {
    /// Where the node with data directory `dataDirectory` serves its control socket.
    public static func socketPath(dataDirectory: String) -> String { "\(dataDirectory)/control.sock" }

    /// The connection itself, for a streaming request (`watch`): send it, then read its lines.
    public let connection: LineClient

    public static func connect(dataDirectory: String) async throws(ControlClientError) -> ControlClient {
        let path = socketPath(dataDirectory: dataDirectory)
        guard FileManager.default.fileExists(atPath: path) else {
            throw .noNode(dataDirectory: dataDirectory)
        }
        do {
            return ControlClient(connection: try await LineClient.connect(path: path))
        } catch {
            throw .unreachable(dataDirectory: dataDirectory, reason: "\(error)")
        }
    }

    /// Sends one request and decodes the `result` of its response, or throws the node's error
    /// (`ControlClientError.refusal`).
    public func call<Result: Codable & Sendable>(_ request: APIRequest, as type: Result.Type) async throws -> Result {
        try await connection.send(try APIJSON.encode(request))
        for try await line in connection.lines {
            let response = try APIJSON.decode(APIResponse<Result>.self, from: line)
            guard response.ok, let result = response.result else {
                throw ControlClientError.refused(
                    APIFailure(kind: response.kind ?? .internal, message: response.error ?? "the node gave no answer"))
            }
            return result
        }
        throw ControlClientError.noAnswer
    }

    public func close() async { await connection.close() }
}
