import Foundation
import ParleyAPI
import ParleyControlSocket
import Testing

/// What a client of the control socket is told when there is no node to ask, or when the node refuses.
@Suite(.timeLimit(.minutes(1))) final class ControlClientTests {
    /// Each test gets its own data directory, removed afterwards.
    private let socket: TemporarySocket
    private var directory: String { (socket.path as NSString).deletingLastPathComponent }
    private var path: String { ControlClient.socketPath(dataDirectory: directory) }

    init() throws { socket = try TemporarySocket() }

    @Test func aDataDirectoryWithoutASocketHasNoNode() async throws {
        let error = await #expect(throws: ControlClientError.self) {
            _ = try await ControlClient.connect(dataDirectory: directory)
        }
        #expect(error?.description == "no node is running with data directory \(directory) (start one with 'parley node --data \(directory) …')")
        #expect(error?.kind == .unavailable)
        #expect(error?.refusal == nil)
    }

    @Test func aSocketNobodyListensOnIsUnreachable() async throws {
        try leaveStaleSocket(at: path)

        let error = await #expect(throws: ControlClientError.self) {
            _ = try await ControlClient.connect(dataDirectory: directory)
        }
        #expect(error?.description == "cannot reach the node in \(directory): cannot connect to \(path): connection refused")
        #expect(error?.kind == .unavailable)
    }

    @Test func theNodesRefusalKeepsItsKindAndMessage() async throws {
        let refusal = APIFailure(kind: .notFound, message: "no chat matches 'Nowhere'")
        let answer = try APIJSON.encode(APIResponse<String>.failure(refusal))
        let server = try await LineServer.start(path: path) { connection in
            do {
                for try await _ in connection.lines { try await connection.send(answer) }
            } catch {}
        }
        try await withThrowingTaskGroup { group in
            group.addTask { try await server.run() }

            let client = try await ControlClient.connect(dataDirectory: directory)
            let error = await #expect(throws: ControlClientError.self) {
                _ = try await client.call(.chatList, as: [ChatView].self)
            }
            #expect(error?.refusal == refusal)
            #expect(error?.kind == .notFound)
            #expect(error?.description == "no chat matches 'Nowhere'")
            await client.close()
            await server.close()
        }
    }

    @Test func aNodeThatHangsUpGaveNoAnswer() async throws {
        // The server takes the request, then closes the connection without a word.
        let server = try await LineServer.start(path: path) { connection in
            do {
                for try await _ in connection.lines { return }
            } catch {}
        }
        try await withThrowingTaskGroup { group in
            group.addTask { try await server.run() }

            let client = try await ControlClient.connect(dataDirectory: directory)
            let error = await #expect(throws: ControlClientError.self) {
                _ = try await client.call(.chatList, as: [ChatView].self)
            }
            #expect(error?.description == "the node closed the connection without answering")
            #expect(error?.kind == .internal)
            #expect(error?.refusal == nil)
            await client.close()
            await server.close()
        }
    }
}
