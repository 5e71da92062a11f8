import NIOCore
import ParleyCore

/// Collects the datagrams of one read cycle and yields them as one batch on `channelReadComplete`,
/// so a burst reaches the node as a unit instead of one hop per datagram.
///
/// It also ends the pipeline for errors: a datagram socket survives ECONNREFUSED and the like, and
/// letting such errors travel on would only log them as unhandled. They are counted instead.
final class DatagramBatchHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let inbox: DatagramInbox
    private let counters: TransportCounters
    private var pending: [Datagram] = []
    /// Formatting an address is slow next to a small datagram, and bursts come from few peers.
    private var addresses: [SocketAddress: PeerAddress] = [:]
    private static let maxCachedAddresses = 1024

    init(inbox: DatagramInbox, counters: TransportCounters) {
        self.inbox = inbox
        self.counters = counters
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = Self.unwrapInboundIn(data)
        guard let address = peerAddress(for: envelope.remoteAddress) else { return }
        pending.append(Datagram(address: address, bytes: Array(envelope.data.readableBytesView)))
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        yieldPending()
        context.fireChannelReadComplete()
    }

    func channelInactive(context: ChannelHandlerContext) {
        yieldPending()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        counters.socketErrors.increment()
    }

    private func yieldPending() {
        guard !pending.isEmpty else { return }
        let batch = pending
        pending.removeAll(keepingCapacity: true)
        counters.datagramsReceived.increment(by: batch.count)
        counters.datagramsDropped.increment(by: inbox.deliver(batch))
    }

    private func peerAddress(for socketAddress: SocketAddress) -> PeerAddress? {
        if let known = addresses[socketAddress] { return known }
        guard let address = PeerAddress(socketAddress) else { return nil }
        if addresses.count >= Self.maxCachedAddresses { addresses.removeAll(keepingCapacity: true) }
        addresses[socketAddress] = address
        return address
    }
}
