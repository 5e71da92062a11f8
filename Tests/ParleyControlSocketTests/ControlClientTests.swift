import Foundation
import ParleyAPI
import ParleyControlSocket
import Testing

/// What a client of the control socket is told when there is no node to ask, or when the node refuses.
@Suite(.timeLimit(.minutes(3))) final class ControlClientTests {
    /// Each test gets its own data directory, removed afterwards.
    private let socket: TemporarySocket
    private var directory: String { (socket.path as NSString).deletingLastPathComponent }
    private var path: String { ControlClient.socketPath(dataDirectory: directory) }

    init() throws { socket = try TemporarySocket() }

    @Test func aDataDirectoryWithoutASocketHasNoNode() async throws {
        let error = await #expect(throws: ControlClientError.self) {
            _ = try await ControlClient.connect(dataDirectory: directory)
        }
        #expect(
            error?.description
                == "no node is running with data directory \(directory) (start one with 'parley node --data \(directory) …')"
        )
        #expect(error?.kind == .unavailable)
        #expect(error?.refusal == nil)
    }

    @Test func aSocketNobodyListensOnIsUnreachable() async throws {
        try leaveStaleSocket(at: path)

        let error = await #expect(throws: ControlClientError.self) {
            _ = try await ControlClient.connect(dataDirectory: directory)
        }
        #expect(
            error?.description == "cannot reach the node in \(directory): cannot connect to \(path): connection refused"
        )
        #expect(error?.kind == .unavailable)
    }

    @Test func theNodesRefusalKeepsItsKindAndMessage() async throws {
        let refusal = APIFailure(kind: .notFound, message: "no chat matches 'Nowhere'")
        let answer = try APIJSON.encode(APIResponse<String>.failure(refusal))
        let error = try await chatListFailure { connection in
            for try await _ in connection.lines { try await connection.send(answer) }
        }
        #expect(error?.refusal == refusal)
        #expect(error?.kind == .notFound)
        #expect(error?.description == "no chat matches 'Nowhere'")
    }

    @Test func aNodeThatHangsUpGaveNoAnswer() async throws {
        // The server takes the request, then closes the connection without a word.
        let error = try await chatListFailure { connection in
            for try await _ in connection.lines { return }
        }
        #expect(error?.description == "the node closed the connection without answering")
        #expect(error?.kind == .internal)
        #expect(error?.refusal == nil)
    }

    /// What a client is told when it asks for the chat list of a node that answers as `serve` does.
    private func chatListFailure(
        _ serve: @escaping @Sendable (LineConnection) async throws -> Void
    ) async throws -> ControlClientError? {
        let server = try await LineServer.start(path: path) { connection in
            do { try await serve(connection) } catch {}
        }
        return try await withThrowingTaskGroup { group in
            group.addTask { try await server.run() }
            let client = try await ControlClient.connect(dataDirectory: directory)
            let error = await #expect(throws: ControlClientError.self) {
                _ = try await client.call(.chatList, as: [ChatView].self)
            }
            await client.close()
            await server.close()
            return error
        }
    }
}
