import NIOCore
import Synchronization

/// Keeps the lines buffered for a slow consumer bounded: reading from the socket stops once
/// `highWatermark` lines wait, and resumes when the consumer is down to `lowWatermark`.
final class ReadPacer: Sendable {
    static let highWatermark = 64
    static let lowWatermark = 8

    private let channel: any Channel
    private let buffered = Atomic<Int>(0)
    private let paused = Atomic<Bool>(false)

    init(channel: any Channel) {
        self.channel = channel
    }

    /// On the event loop, after a line was handed to the consumer's buffer.
    func lineBuffered() {
        let count = buffered.add(1, ordering: .sequentiallyConsistent).newValue
        guard count >= Self.highWatermark, !paused.exchange(true, ordering: .sequentiallyConsistent) else { return }
        channel.setOption(ChannelOptions.autoRead, value: false).whenComplete { _ in }
        // The consumer may have caught up before `paused` was set, leaving nobody to resume reading.
        if buffered.load(ordering: .sequentiallyConsistent) <= Self.lowWatermark {
            resume()
        }
    }

    /// From the consumer, after it took a line.
    func lineConsumed() {
        let count = buffered.subtract(1, ordering: .sequentiallyConsistent).newValue
        if count <= Self.lowWatermark {
            resume()
        }
    }

    private func resume() {
        guard paused.exchange(false, ordering: .sequentiallyConsistent) else { return }
        channel.setOption(ChannelOptions.autoRead, value: true).whenComplete { _ in }
    }
}
