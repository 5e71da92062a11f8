#if canImport(Glibc)
    import Glibc
#endif
import NIOCore
import Synchronization

/// Datagrams that leave with a hop limit of their own (`Datagram.hopLimit`: rendezvous openings,
/// PROTOCOL.md §12a). NIO has no per-datagram TTL, so the socket's is set before such a write and set
/// back to the system's once the kernel has taken it, all on the event loop. A write the kernel cannot
/// take at once (its buffer full) keeps the limit set until it goes: whatever leaves meanwhile leaves
/// with it too, is lost past a few hops and retransmitted like any loss. The other way round, an
/// opening leaving at full TTL, would close the hole it is meant to open.
final class HopLimitedWrites: Sendable {
    /// The IPv4 TTL; on an IPv6 socket also its unicast hop limit (it sends to IPv4-mapped addresses
    /// with the IPv4 one): an opening goes only where both took its limit.
    private let options: [ChannelOptions.Types.SocketOption]
    /// Writes with a limit set that the kernel has not taken yet.
    private let inFlight = Mutex(0)

    init(ipv6: Bool) {
        let ttl = ChannelOptions.ipOption(NIOBSDSocket.Option(rawValue: IP_TTL))
        options =
            ipv6
            ? [
                ChannelOptions.Types.SocketOption(level: .ipv6, name: NIOBSDSocket.Option(rawValue: IPV6_UNICAST_HOPS)),
                ttl,
            ]
            : [ttl]
    }

    /// Writes each datagram with its hop limit; called on the channel's event loop.
    func write(
        _ limited: [(envelope: AddressedEnvelope<ByteBuffer>, hops: UInt8)],
        to channel: any Channel,
        counters: TransportCounters
    ) -> EventLoopFuture<Void> {
        let eventLoop = channel.eventLoop
        guard !limited.isEmpty else { return eventLoop.makeSucceededVoidFuture() }
        var results: [EventLoopFuture<Void>] = []
        for (envelope, hops) in limited {
            guard set(SocketOptionValue(hops), on: channel) else {
                counters.sendFailures.increment()
                continue
            }
            inFlight.withLock { $0 += 1 }
            let written = UDPTransport.write([envelope], to: channel, counters: counters)
            written.whenComplete { _ in
                guard
                    self.inFlight.withLock({
                        $0 -= 1; return $0 == 0
                    })
                else { return }
                // -1: the route's default. A socket left with a small limit would lose everything it
                // sends past a few hops: closing it has the transport bind a fresh one.
                if !self.set(-1, on: channel) { channel.close(promise: nil) }
            }
            results.append(written)
        }
        return EventLoopFuture.andAllComplete(results, on: eventLoop)
    }

    /// Whether every option took `value`; when one did not, those that did are put back to the
    /// route's default, so that a refusal never leaves the socket with a small limit.
    private func set(_ value: SocketOptionValue, on channel: any Channel) -> Bool {
        guard let sync = channel.syncOptions else { return false }
        let took = options.map { (try? sync.setOption($0, value: value)) != nil }
        guard took.contains(false) else { return true }
        for (option, took) in zip(options, took) where took { _ = try? sync.setOption(option, value: -1) }
        return false
    }
}
