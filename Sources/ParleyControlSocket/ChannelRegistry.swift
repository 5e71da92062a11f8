import NIOCore
import Synchronization

/// The accepted connections of a `LineServer`, so stopping the server closes every one of them,
/// including any accepted but not yet handed to `run()`.
final class ChannelRegistry: Sendable {
    private struct State {
        var channels: [ObjectIdentifier: any Channel] = [:]
        var isClosed = false
    }

    private let state = Mutex(State())

    /// Tracks `channel` until it closes; closes it at once if the registry already was.
    func add(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        let accepted = state.withLock { state in
            guard !state.isClosed else { return false }
            state.channels[id] = channel
            return true
        }
        guard accepted else {
            channel.close(promise: nil)
            return
        }
        channel.closeFuture.whenComplete { [weak self] _ in
            self?.state.withLock { _ = $0.channels.removeValue(forKey: id) }
        }
    }

    func closeAll() {
        let open = state.withLock { state in
            state.isClosed = true
            defer { state.channels.removeAll() }
            return Array(state.channels.values)
        }
        for channel in open {
            channel.close(promise: nil)
        }
    }
}
