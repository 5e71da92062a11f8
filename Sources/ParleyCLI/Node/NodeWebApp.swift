import ParleyHTTP

/// The node's web app between `makeWebApp` and serving: what it prints once it listens.
struct NodeWebApp: Sendable {
    let server: WebServer
    let bound: AsyncStream<WebAddress>
    let listening: AsyncStream<WebAddress>.Continuation
    /// Lines about the certificate, printed with the address.
    let notes: [String]
    let fingerprint: String?
    let data: String

    /// Serves in `group` and returns once the server listens, with the lines that say where; throws
    /// the server's own failure (one line: the port is taken) if it cannot listen.
    func start(in group: inout ThrowingTaskGroup<Void, any Error>) async throws -> [String] {
        let (server, listening) = (server, listening)
        group.addTask {
            defer { listening.finish() }
            try await server.run()
        }
        var iterator = bound.makeAsyncIterator()
        guard let address = await iterator.next() else {
            try await group.next()
            throw CLIError("the web app on \(server.address) stopped before it listened")
        }
        var lines = notes + ["web app on \(address.origin) ('parley web --data \(data)' prints the login URL)"]
        if let fingerprint {
            lines.append(
                "web app certificate SHA-256 \(fingerprint) (check that the browser shows the same before you log in)")
        }
        return lines
    }
}
