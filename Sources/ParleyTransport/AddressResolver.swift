import NIOCore
import NIOPosix
import ParleyCore
import Synchronization

/// Turns peer addresses into socket addresses once and remembers them: the node sends to the same few
/// peers over and over, and even parsing "127.0.0.1" costs more than a small datagram's write.
///
/// Host names are resolved on NIO's thread pool (getaddrinfo blocks) and then kept like literals;
/// peers are nearly always IP literals, and the cache is small and reset when full.
final class AddressResolver: Sendable {
    private let cache = Mutex<[PeerAddress: SocketAddress]>([:])
    private let threadPool: NIOThreadPool
    private static let maxEntries = 4096

    init(threadPool: NIOThreadPool = .singleton) {
        self.threadPool = threadPool
    }

    func resolve(_ address: PeerAddress) async -> SocketAddress? {
        if let known = cache.withLock({ $0[address] }) { return known }
        let host = address.host
        let port = Int(address.port)
        let resolved: SocketAddress
        if let literal = try? SocketAddress(ipAddress: host, port: port) {
            resolved = literal
        } else if let named = try? await threadPool.runIfActive({
            try SocketAddress.makeAddressResolvingHost(host, port: port)
        }) {
            resolved = named
        } else {
            return nil
        }
        cache.withLock { cache in
            if cache.count >= Self.maxEntries { cache.removeAll(keepingCapacity: true) }
            cache[address] = resolved
        }
        return resolved
    }
}
