import NIOCore

/// Feeds decoded lines into an async sequence for `LineClient`, pausing socket reads while the
/// consumer is behind so that memory stays bounded.
final class LineStreamHandler: ChannelInboundHandler {
    typealias InboundIn = String
    typealias Lines = NIOThrowingAsyncSequenceProducer<
        String, any Error, NIOAsyncSequenceProducerBackPressureStrategies.HighLowWatermark, ReadResumer
    >

    /// Turns reading back on once the consumer has caught up.
    struct ReadResumer: NIOAsyncSequenceProducerDelegate {
        let channel: any Channel

        func produceMore() {
            channel.setOption(ChannelOptions.autoRead, value: true).whenComplete { _ in }
        }

        func didTerminate() {}
    }

    private let source: Lines.Source

    private init(source: Lines.Source) {
        self.source = source
    }

    /// Adds the handler to `channel`'s pipeline and returns the sequence it feeds. Call on the event loop.
    static func install(on channel: any Channel) throws -> Lines {
        let made = Lines.makeSequence(
            backPressureStrategy: .init(lowWatermark: 2, highWatermark: 64),
            finishOnDeinit: false,
            delegate: ReadResumer(channel: channel)
        )
        try channel.pipeline.syncOperations.addHandler(LineStreamHandler(source: made.source))
        return made.sequence
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .stopProducing = source.yield(Self.unwrapInboundIn(data)) {
            context.channel.setOption(ChannelOptions.autoRead, value: false).whenComplete { _ in }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        source.finish()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        source.finish(error)
        context.close(promise: nil)
    }
}
