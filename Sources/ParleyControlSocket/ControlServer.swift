public import ParleyAPI
import ParleyTransport

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
                            if try await service.stream(request, emit: { try await connection.send($0) }) { return }
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

    public func run() async throws { try await server.run() }
    public func close() async { await server.close() }
}
