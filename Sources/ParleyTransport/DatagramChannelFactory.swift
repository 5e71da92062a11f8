import NIOCore
import NIOPosix
import ParleyCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Binds the datagram channels of a `UDPTransport`, tuned for bursts, and can do it again when the
/// main socket dies under us.
struct DatagramChannelFactory: Sendable {
    /// Read up to this many datagrams per system call (recvmmsg).
    static let vectorReadCount = 64
    /// Room for the largest datagram we accept (ParleyCore's 65,000 bytes), per vector slot.
    static let slotBytes = 65_536
    /// Kernel buffers big enough to absorb a burst while the event loop is busy (capped by rmem_max/wmem_max).
    static let socketBufferBytes: SocketOptionValue = 4 << 20

    let eventLoopGroup: MultiThreadedEventLoopGroup
    let inbox: DatagramInbox
    let counters: TransportCounters
    /// Where multicast announcements leave from, when discovery is on.
    let multicastInterface: SocketAddress?

    func bindMain(to address: SocketAddress) -> EventLoopFuture<any Channel> {
        let interface = multicastInterface
        return bootstrap(sharingPort: false).bind(to: address).flatMap { channel in
            guard let interface, let octets = interface.ipAddress.flatMap(IPv4Octets.init) else {
                return channel.eventLoop.makeSucceededFuture(channel)
            }
            guard let options = channel as? any SocketOptionProvider else {
                return channel.close().flatMapThrowing { throw ChannelError.operationUnsupported }
            }
            // Announcements to the group leave by the discovery interface, and loop back so that other
            // nodes on this host hear them too.
            return options.setIPMulticastIF(octets.inAddr)
                .flatMap { options.setIPMulticastLoop(1) }
                .map { channel }
                .flatMapError { error in channel.close().flatMapThrowing { throw error } }
        }
    }

    /// Listens on the group's port on all addresses, sharing it with other nodes on this host.
    func bindDiscovery(group: SocketAddress, device: NIONetworkDevice) -> EventLoopFuture<any Channel> {
        bootstrap(sharingPort: true).bind(host: "0.0.0.0", port: group.port ?? 0).flatMap { channel in
            guard let multicast = channel as? any MulticastChannel else {
                return channel.close().flatMapThrowing { throw ChannelError.operationUnsupported }
            }
            return multicast.joinGroup(group, device: device)
                .map { channel }
                .flatMapError { error in channel.close().flatMapThrowing { throw error } }
        }
    }

    private func bootstrap(sharingPort: Bool) -> DatagramBootstrap {
        let inbox = self.inbox
        let counters = self.counters
        var bootstrap = DatagramBootstrap(group: eventLoopGroup)
            .channelOption(.socketOption(.so_rcvbuf), value: Self.socketBufferBytes)
            .channelOption(.socketOption(.so_sndbuf), value: Self.socketBufferBytes)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        DatagramBatchHandler(inbox: inbox, counters: counters)
                    )
                }
            }
        #if os(Linux) || os(FreeBSD) || os(Android)
            // NIO splits one receive buffer into `vectorReadCount` slots, so size it for full slots.
            bootstrap =
                bootstrap
                .channelOption(.datagramVectorReadMessageCount, value: Self.vectorReadCount)
                .channelOption(
                    .recvAllocator,
                    value: FixedSizeRecvByteBufferAllocator(capacity: Self.vectorReadCount * Self.slotBytes)
                )
        #else
            bootstrap = bootstrap.channelOption(
                .recvAllocator, value: FixedSizeRecvByteBufferAllocator(capacity: Self.slotBytes))
        #endif
        if sharingPort {
            bootstrap =
                bootstrap
                .channelOption(.socketOption(.so_reuseaddr), value: 1)
                .channelOption(.socketOption(NIOBSDSocket.Option(rawValue: SO_REUSEPORT)), value: 1)
        }
        return bootstrap
    }
}
