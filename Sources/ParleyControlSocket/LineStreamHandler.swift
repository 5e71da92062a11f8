import NIOCore

/// Feeds decoded lines to a `LineSequence`. The sequence ends at end of input and fails on a framing
/// error, after which the connection is closed.
final class LineStreamHandler: ChannelInboundHandler {
    typealias InboundIn = String

    private let continuation: AsyncThrowingStream<String, any Error>.Continuation
    private let pacer: ReadPacer

    private init(continuation: AsyncThrowingStream<String, any Error>.Continuation, pacer: ReadPacer) {
        self.continuation = continuation
        self.pacer = pacer
    }

    /// Adds the handler to `channel`'s pipeline and returns the lines it feeds. Call on the event loop.
    static func install(on channel: any Channel) throws -> LineSequence {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: String.self)
        let pacer = ReadPacer(channel: channel)
        try channel.pipeline.syncOperations.addHandler(LineStreamHandler(continuation: continuation, pacer: pacer))
        return LineSequence(stream: stream, pacer: pacer)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        continuation.yield(Self.unwrapInboundIn(data))
        pacer.lineBuffered()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The peer is done sending but may still be waiting for our answer.
        if case ChannelEvent.inputClosed = event {
            continuation.finish()
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        continuation.finish()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        continuation.finish()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        continuation.finish(throwing: error)
        context.close(promise: nil)
    }
}

/// The lines of a connection. Unlike NIO's single-iterator sequences it may be iterated again (one
/// iterator at a time), so a client can read one answer per request with `for try await`.
struct LineSequence: AsyncSequence, Sendable {
    typealias Element = String

    fileprivate let stream: AsyncThrowingStream<String, any Error>
    fileprivate let pacer: ReadPacer

    struct AsyncIterator: AsyncIteratorProtocol {
        fileprivate var base: AsyncThrowingStream<String, any Error>.Iterator
        fileprivate let pacer: ReadPacer

        mutating func next() async throws -> String? {
            let line = try await base.next()
            if line != nil { pacer.lineConsumed() }
            return line
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: stream.makeAsyncIterator(), pacer: pacer)
    }
}
