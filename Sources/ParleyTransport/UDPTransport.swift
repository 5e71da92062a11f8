#if canImport(Glibc)
    import Glibc
#endif
import NIOCore
public import NIOPosix
public import ParleyCore
import Synchronization

/// The node's network: one UDP socket for everything, plus a multicast listener when LAN discovery is on.
///
/// Sending is best effort, like UDP itself. `send` returns once the kernel has taken the whole batch,
/// so a caller that awaits it is slowed to what the socket accepts rather than queueing without bound;
/// datagrams the network then loses are the protocol's to retransmit. A datagram that cannot be sent
/// (unresolvable host, wrong address family, a socket error) is counted in `statistics`, never thrown.
///
/// Socket errors never end the transport: read-side errors are swallowed by `DatagramBatchHandler`,
/// and if a write error makes NIO close the socket anyway (it does for EINVAL, EACCES, ENETUNREACH…),
/// the socket is bound again on the same address. `inbound` ends only on `close()`, or if that rebind fails.
public final class UDPTransport: DatagramTransport {
    public let localAddress: PeerAddress
    public let discoveryTarget: PeerAddress?
    public let inbound: DatagramInbox

    enum State {
        case open(main: any Channel, discovery: (any Channel)?)
        case closed
    }

    let state: Mutex<State>
    let factory: DatagramChannelFactory
    /// The address actually bound (real port), where a replacement socket binds too.
    let boundAddress: SocketAddress
    let counters: TransportCounters
    private let resolver = AddressResolver()
    private let hopLimits: HopLimitedWrites
    /// The broadcast addresses of this machine's networks (a subnet's x.x.x.255 and the like): the
    /// kernel refuses a send there (EACCES), which would close the socket.
    private let localBroadcasts: Set<String> = Set(
        ((try? System.enumerateDevices()) ?? []).compactMap { $0.broadcastAddress?.ipAddress })

    public var statistics: TransportStatistics { counters.snapshot }

    private init(
        main: any Channel,
        discovery: (any Channel)?,
        boundAddress: SocketAddress,
        localAddress: PeerAddress,
        discoveryTarget: PeerAddress?,
        factory: DatagramChannelFactory
    ) {
        self.state = Mutex(.open(main: main, discovery: discovery))
        self.boundAddress = boundAddress
        self.localAddress = localAddress
        self.discoveryTarget = discoveryTarget
        self.inbound = factory.inbox
        self.counters = factory.counters
        self.factory = factory
        self.hopLimits = HopLimitedWrites(ipv6: boundAddress.protocol == .inet6)
    }

    deinit {
        // A transport dropped without `close()` must not leak its sockets.
        if case let .open(main, discovery) = state.withLock({ $0 }) {
            main.close(promise: nil)
            discovery?.close(promise: nil)
        }
        inbound.finish()
    }

    /// Binds a UDP socket on `host:port` (port 0 picks a free one) and, with `discovery`, joins its
    /// multicast group.
    public static func bind(
        host: String,
        port: Int,
        discovery: DiscoveryOptions? = nil,
        eventLoopGroup: MultiThreadedEventLoopGroup = .singleton
    ) async throws(TransportError) -> UDPTransport {
        let shown = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        guard (0...65535).contains(port) else { throw .badAddress(shown, reason: "the port must be 0–65535") }
        let address = try await resolve(host: host, port: port, shown: shown)

        var group: SocketAddress?
        var device: NIONetworkDevice?
        if var discovery {
            // The listen host may be a name; the interface is matched by its resolved address.
            if discovery.interfaceAddress == host { discovery.interfaceAddress = address.ipAddress }
            guard case .v4 = address else {
                throw .badAddress(shown, reason: "LAN discovery needs an IPv4 listen address")
            }
            group = try discovery.groupAddress()
            device = try discovery.device()
        }

        let inbox = DatagramInbox()
        let factory = DatagramChannelFactory(
            eventLoopGroup: eventLoopGroup,
            inbox: inbox,
            counters: TransportCounters(),
            multicastInterface: device?.address
        )

        let main: any Channel
        do {
            main = try await factory.bindMain(to: address).get()
        } catch {
            inbox.finish()
            throw .cannotListen(on: shown, reason: TransportError.reason(for: error))
        }

        var discoveryChannel: (any Channel)?
        if let group, let device {
            do {
                discoveryChannel = try await factory.bindDiscovery(group: group, device: device).get()
            } catch {
                try? await main.close()
                inbox.finish()
                throw .discoveryFailed(
                    "cannot join \(group.ipAddress ?? "?") on port \(group.port ?? 0) via \(device.name): "
                        + TransportError.reason(for: error)
                )
            }
        }

        guard let bound = main.localAddress, let local = PeerAddress(bound) else {
            try? await main.close()
            try? await discoveryChannel?.close()
            inbox.finish()
            throw .cannotListen(on: shown, reason: "the socket has no local address")
        }
        let transport = UDPTransport(
            main: main,
            discovery: discoveryChannel,
            boundAddress: bound,
            localAddress: local,
            discoveryTarget: group.flatMap(PeerAddress.init),
            factory: factory
        )
        transport.watch(main)
        return transport
    }

    public func send(_ batch: [Datagram]) async {
        guard !batch.isEmpty else { return }
        guard let channel = state.withLock({ if case let .open(main, _) = $0 { main } else { nil } }) else {
            counters.sendFailures.increment(by: batch.count)
            return
        }
        var envelopes: [AddressedEnvelope<ByteBuffer>] = []
        envelopes.reserveCapacity(batch.count)
        var limited: [(envelope: AddressedEnvelope<ByteBuffer>, hops: UInt8)] = []
        // A batch mostly goes to a few peers: look each up once.
        var remotes: [PeerAddress: SocketAddress?] = [:]
        for datagram in batch {
            let remote: SocketAddress?
            if let known = remotes[datagram.address] {
                remote = known
            } else {
                remote = await usableAddress(for: datagram.address)
                remotes[datagram.address] = remote
            }
            guard let remote else {
                counters.sendFailures.increment()
                continue
            }
            let envelope = AddressedEnvelope(remoteAddress: remote, data: ByteBuffer(bytes: datagram.bytes))
            if let hops = datagram.hopLimit { limited.append((envelope, hops)) } else { envelopes.append(envelope) }
        }
        guard !envelopes.isEmpty || !limited.isEmpty else { return }
        let counters = self.counters
        let outgoing = envelopes
        let outgoingLimited = limited
        let hopLimits = self.hopLimits
        let written = channel.eventLoop.flatSubmit {
            // Almost every batch has no opening: it costs no future more than a plain write.
            guard !outgoingLimited.isEmpty else { return Self.write(outgoing, to: channel, counters: counters) }
            // Openings first: a write queued behind others the kernel has not taken yet would wait
            // with them.
            return hopLimits.write(outgoingLimited, to: channel, counters: counters).and(
                Self.write(outgoing, to: channel, counters: counters)
            ).map { _ in }
        }
        try? await written.get()
    }

    public func close() async {
        let channels: [any Channel] = state.withLock { state in
            guard case let .open(main, discovery) = state else { return [] }
            state = .closed
            return [main] + (discovery.map { [$0] } ?? [])
        }
        for channel in channels {
            try? await channel.close()
        }
        // After the channels, so datagrams read before closing are yielded first.
        inbound.finish()
    }

    /// The socket address for `peer`, or nil if it cannot be resolved or reached from our socket.
    private func usableAddress(for peer: PeerAddress) async -> SocketAddress? {
        guard peer.port != 0, let remote = await resolver.resolve(peer) else { return nil }
        // An IPv4 socket cannot reach an IPv6 peer, and NIO would close the socket on the EAFNOSUPPORT.
        if boundAddress.protocol == .inet && remote.protocol == .inet6 { return nil }
        // The kernel refuses port 0 and broadcast (EINVAL, EACCES), and NIO closes the socket on any
        // write error it does not expect: an address a peer could name (the source of an announce, a
        // member's `meet`) must never get that far. Multicast goes only to the discovery group.
        guard
            peer == discoveryTarget
                || remote.ipAddress.map({ Self.isUnicast($0) && !localBroadcasts.contains($0) }) == true
        else { return nil }
        return remote
    }

    /// False for IPv4 0.0.0.0/8, 255.255.255.255 and 224.0.0.0/3 (multicast and reserved), and for IPv6
    /// `::`, ff00::/8 (multicast), fe80::/10 (link-local, unusable without a scope) and IPv4-mapped
    /// forms of the refused IPv4 ones; true for every other literal, and for names. A subnet's own broadcast address is refused separately (`localBroadcasts`).
    public static func isUnicast(_ host: String) -> Bool {
        if let octets = IPv4Octets(host) {
            return octets.bytes.0 != 0 && octets.bytes.0 < 224 // 255.255.255.255 is in 224.0.0.0/3 too
        }
        if host.contains(":") {
            let lowered = host.lowercased()
            if lowered.hasPrefix("::ffff:"), lowered.contains(".") { return isUnicast(String(lowered.dropFirst(7))) }
            return lowered != "::" && !lowered.hasPrefix("ff") && !lowered.hasPrefix("fe8") && !lowered.hasPrefix("fe9")
                && !lowered.hasPrefix("fea") && !lowered.hasPrefix("feb")
        }
        return true
    }

    /// Writes every datagram and flushes once; the future completes when the kernel has taken them all.
    static func write(
        _ envelopes: [AddressedEnvelope<ByteBuffer>],
        to channel: any Channel,
        counters: TransportCounters
    ) -> EventLoopFuture<Void> {
        let eventLoop = channel.eventLoop
        guard !envelopes.isEmpty else { return eventLoop.makeSucceededVoidFuture() }
        var results: [EventLoopFuture<Void>] = []
        results.reserveCapacity(envelopes.count)
        for envelope in envelopes {
            let promise = eventLoop.makePromise(of: Void.self)
            channel.write(envelope, promise: promise)
            results.append(promise.futureResult)
        }
        channel.flush()
        return EventLoopFuture.whenAllComplete(results, on: eventLoop).map { outcomes in
            let failed = outcomes.count { if case .failure = $0 { true } else { false } }
            counters.sendFailures.increment(by: failed)
            counters.datagramsSent.increment(by: outcomes.count - failed)
        }
    }

    private static func resolve(host: String, port: Int, shown: String) async throws(TransportError) -> SocketAddress {
        if let literal = try? SocketAddress(ipAddress: host, port: port) { return literal }
        do {
            return try await NIOThreadPool.singleton.runIfActive {
                try SocketAddress.makeAddressResolvingHost(host, port: port)
            }
        } catch {
            throw .badAddress(shown, reason: TransportError.reason(for: error))
        }
    }
}
