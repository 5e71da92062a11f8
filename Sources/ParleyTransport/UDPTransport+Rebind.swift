import ParleyCore
import NIOCore
import Synchronization

extension UDPTransport {
    /// Rebinds the main socket if it closes while the transport is open.
    func watch(_ channel: any Channel) {
        channel.closeFuture.whenComplete { [weak self] _ in
            self?.mainChannelClosed(channel)
        }
    }

    private func mainChannelClosed(_ channel: any Channel) {
        let isCurrent = state.withLock { state in
            if case let .open(main, _) = state { main === channel } else { false }
        }
        guard isCurrent else { return }
        factory.bindMain(to: boundAddress).whenComplete { [weak self] result in
            self?.replace(channel, with: result)
        }
    }

    private func replace(_ dead: any Channel, with result: Result<any Channel, any Error>) {
        switch result {
        case let .success(fresh):
            let adopted = state.withLock { state in
                guard case let .open(main, discovery) = state, main === dead else { return false }
                state = .open(main: fresh, discovery: discovery)
                return true
            }
            if adopted {
                counters.rebinds.increment()
                watch(fresh)
            } else {
                fresh.close(promise: nil)
            }
        case .failure:
            // Without a socket there is nothing left to do; ending `inbound` tells the node.
            let discovery = state.withLock { state -> (any Channel)? in
                guard case let .open(main, discovery) = state, main === dead else { return nil }
                state = .closed
                return discovery
            }
            discovery?.close(promise: nil)
            inbound.finish()
        }
    }
}
