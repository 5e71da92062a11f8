import NIOCore
public import NIOPosix

/// The client end of a `LineServer`: connects to the node's control socket and exchanges lines.
public final class LineClient: Sendable {
    public let path: String
    private let connection: LineConnection

    private init(path: String, connection: LineConnection) {
        self.path = path
        self.connection = connection
    }

    /// Connects to the socket at `path`. The error names the path and the reason, such as
    /// "no such file or directory" when no server made the socket, or "connection refused" when it is stale.
    public static func connect(
        path: String,
        eventLoopGroup: MultiThreadedEventLoopGroup = .singleton
    ) async throws(ControlSocketError) -> LineClient {
        do {
            let connection = try await ClientBootstrap(group: eventLoopGroup)
                .connectTimeout(.seconds(5))
                .connect(unixDomainSocketPath: path) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try LineConnection.configure(
                            channel, maxInbound: NewlineFrameDecoder.responseLimit,
                            maxOutbound: NewlineFrameDecoder.requestLimit)
                    }
                }
            return LineClient(path: path, connection: connection)
        } catch {
            throw .cannotConnect(to: path, reason: ControlSocketError.reason(for: error))
        }
    }

    /// The lines received, without their "\n". Ends when the server closes the connection; throws
    /// `ControlSocketError` (`isLineTooLong`) for an over-long line. It can be iterated again to continue
    /// where the last loop stopped, but by one task at a time.
    public var lines: some AsyncSequence<String, any Error> { connection.lines }

    /// Sends `line` followed by "\n"; returns once it is handed to the kernel.
    public func send(_ line: String) async throws(ControlSocketError) {
        try await connection.send(line)
    }

    public func close() async {
        await connection.close()
    }
}
