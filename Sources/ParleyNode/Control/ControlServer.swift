import Foundation
import ParleyTransport

/// Serves the control socket: a Unix-domain socket in the data directory, mode 0600, so only
/// the node's owner can drive it. Each line is a `ControlRequest`; `watch` turns the connection into a stream.
public struct ControlServer: Sendable {
    private let server: LineServer

    public static func start(service: ControlService, socketPath: String) async throws -> ControlServer {
        let server = try await LineServer.start(path: socketPath) { connection in
            do {
                for try await line in connection.lines {
                    if let request = try? JSONDecoder().decode(ControlRequest.self, from: Data(line.utf8)), case let .watch(chat) = request {
                        do { try await service.watch(chat: chat) { try await connection.send($0) } } catch {
                            try? await connection.send(ControlService.encode(ControlResponse<String>.failure(String(describing: error))))
                        }
                        return
                    }
                    try await connection.send(await service.respond(to: line))
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
