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
                    case let .success(.watch(chat)):
                        do { try await service.watch(chat: chat) { try await connection.send($0) } } catch {
                            try? await connection.send(APIService.failure(APIFailure(error)))
                        }
                        return
                    case let .success(request):
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
