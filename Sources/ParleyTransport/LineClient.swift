import NIOCore
import NIOPosix

/// The client end of a `LineServer`: connects to the node's control socket and exchanges lines.
public final class LineClient: Sendable {
    public let path: String

    private let channel: any Channel
    private let inboundLines: LineStreamHandler.Lines

    private init(path: String, channel: any Channel, lines: LineStreamHandler.Lines) {
        self.path = path
        self.channel = channel
        self.inboundLines = lines
    }

    /// Connects to the socket at `path`. The error names the path and the reason, such as
    /// "no such file or directory" when no server made the socket, or "connection refused" when it is stale.
    public static func connect(
        path: String,
        eventLoopGroup: MultiThreadedEventLoopGroup = .singleton
    ) async throws(TransportError) -> LineClient {
        struct Connected: Sendable {
            let channel: any Channel
            let lines: LineStreamHandler.Lines
        }
        do {
            let connected = try await ClientBootstrap(group: eventLoopGroup)
                .connectTimeout(.seconds(5))
                .connect(unixDomainSocketPath: path) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(NewlineFrameDecoder()))
                        try channel.pipeline.syncOperations.addHandler(MessageToByteHandler(NewlineFrameEncoder()))
                        return Connected(channel: channel, lines: try LineStreamHandler.install(on: channel))
                    }
                }
            return LineClient(path: path, channel: connected.channel, lines: connected.lines)
        } catch {
            throw .cannotConnect(to: path, reason: TransportError.reason(for: error))
        }
    }

    /// The lines received, without their "\n". Ends when the server closes the connection; throws
    /// `TransportError` `lineTooLong` for an over-long line. Iterate it once only.
    public var lines: some AsyncSequence<String, any Error> { inboundLines }

    /// Sends `line` followed by "\n"; returns once it is handed to the kernel.
    public func send(_ line: String) async throws(TransportError) {
        try NewlineFrameEncoder.check(line)
        do {
            try await channel.writeAndFlush(line)
        } catch {
            throw .sendFailed(TransportError.reason(for: error))
        }
    }

    public func close() async {
        try? await channel.close()
    }

    deinit {
        channel.close(promise: nil)
    }
}
