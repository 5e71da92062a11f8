import NIOCore

/// A control-socket connection: newline-framed text in both directions. The server hands one to its
/// handler per client; `LineClient` wraps one.
public final class LineConnection: Sendable {
    private let channel: any Channel
    private let inboundLines: LineSequence
    private let maxOutbound: Int

    private init(channel: any Channel, lines: LineSequence, maxOutbound: Int) {
        self.channel = channel
        self.inboundLines = lines
        self.maxOutbound = maxOutbound
    }

    /// Sets up line framing on a fresh channel. Call on its event loop, before it reads anything.
    /// A line received longer than `maxInbound` fails the connection; `send` refuses one longer than
    /// `maxOutbound`, which must match the other side's inbound limit.
    static func configure(_ channel: any Channel, maxInbound: Int, maxOutbound: Int) throws -> LineConnection {
        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(NewlineFrameDecoder(maxLength: maxInbound)))
        try channel.pipeline.syncOperations.addHandler(MessageToByteHandler(NewlineFrameEncoder()))
        return LineConnection(
            channel: channel, lines: try LineStreamHandler.install(on: channel), maxOutbound: maxOutbound)
    }

    /// The lines received, without their "\n". Ends when the peer stops sending; throws
    /// `ControlSocketError` (`isLineTooLong`) if the peer sends an over-long line. It can be iterated
    /// again to continue where the last loop stopped, but by one task at a time.
    public var lines: some AsyncSequence<String, any Error> { inboundLines }

    /// Sends `line` followed by "\n", returning once it is handed to the kernel (so a peer that does
    /// not read slows the sender down rather than filling memory).
    public func send(_ line: String) async throws(ControlSocketError) {
        try NewlineFrameEncoder.check(line, maxLength: maxOutbound)
        do {
            try await channel.writeAndFlush(line)
        } catch {
            throw .sendFailed(ControlSocketError.reason(for: error))
        }
    }

    public func close() async {
        try? await channel.close()
    }

    deinit {
        // A connection dropped without `close()` must not leak its socket.
        channel.close(promise: nil)
    }
}
