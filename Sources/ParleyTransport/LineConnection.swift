import NIOCore

/// One accepted control connection: newline-framed text in both directions.
///
/// Valid only inside the `LineServer` handler it was passed to; the connection closes when the
/// handler returns.
public struct LineConnection: Sendable {
    private let inbound: NIOAsyncChannelInboundStream<String>
    private let outbound: NIOAsyncChannelOutboundWriter<String>

    init(inbound: NIOAsyncChannelInboundStream<String>, outbound: NIOAsyncChannelOutboundWriter<String>) {
        self.inbound = inbound
        self.outbound = outbound
    }

    /// The lines received, without their "\n". Ends when the peer closes; throws `TransportError`
    /// `lineTooLong` if the peer sends an over-long line. Iterate it once only.
    public var lines: some AsyncSequence<String, any Error> { inbound }

    /// Sends `line` followed by "\n", waiting while the peer is slow to read.
    public func send(_ line: String) async throws(TransportError) {
        try NewlineFrameEncoder.check(line)
        do {
            try await outbound.write(line)
        } catch {
            throw .sendFailed(TransportError.reason(for: error))
        }
    }
}
