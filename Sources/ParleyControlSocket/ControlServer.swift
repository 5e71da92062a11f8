public import ParleyAPI

/// Serves the control socket: a Unix-domain socket in the data directory, mode 0600, so only
/// the node's owner can drive it. Each line is a `APIRequest`; `watch` turns the connection into a stream.
public struct ControlServer: Sendable {
    private let server: LineServer

    public static func start(service: APIService, socketPath: String) async throws -> ControlServer {
        let server = try await LineServer.start(path: socketPath) { connection in
            do {
                for try await line in connection.lines {
                    switch APIService.parse(line) {
                    case let .failure(failure):
                        try await connection.send(failure.line)
                    case let .success(request):
                        do {
                            // A stream holds the connection until the client goes away.
                            if request.isStreaming {
                                try await streamUntilHangUp(request, service: service, connection: connection)
                                return
                            }
                        } catch {
                            try? await connection.send(APIService.failure(APIFailure(error)))
                            return
                        }
                        try await connection.send(await service.respond(to: request))
                    }
                }
            } catch {
                // The client went away mid-answer: nothing to report to anyone.
            }
        }
        return ControlServer(server: server)
    }

    /// Serves a streaming request until the client hangs up: a quiet stream (a criteria no message
    /// matches) would otherwise only notice at its next line, and hold its task and subscription
    /// until the node stops. The client sends nothing more once streaming, so the end of its input
    /// is its hang-up.
    private static func streamUntilHangUp(_ request: APIRequest, service: APIService, connection: LineConnection)
        async throws
    {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { _ = try await service.stream(request, emit: { try await connection.send($0) }) }
            group.addTask { for try await _ in connection.lines {} }
            // Whichever ends first (the stream, by failing, or the client's input) ends the other.
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    public func run() async throws { try await server.run() }
    public func close() async { await server.close() }
}
