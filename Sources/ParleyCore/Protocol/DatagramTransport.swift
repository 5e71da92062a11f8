/// What the node needs from a network: the real one is UDP (ParleyTransport), tests inject a lossy in-memory one.
public protocol DatagramTransport: Sendable {
    /// The bound address, with the real port when bound to port 0.
    var localAddress: PeerAddress { get }
    /// Where signed discovery announcements go, when discovery is on (a multicast group).
    var discoveryTarget: PeerAddress? { get }
    /// Datagrams in batches: all that arrived while the consumer was busy, so a burst is handled
    /// as one unit. Ends on `close()`.
    var inbound: DatagramInbox { get }
    /// Sends a batch; delivery is best effort, like UDP.
    func send(_ batch: [Datagram]) async
    func close() async
}

/// Time as the protocol sees it, injected so tests can drive it by hand.
public protocol NodeClock: Sendable {
    /// Monotonic time since an arbitrary origin: timers, backoff, expiry.
    var now: Duration { get }
    /// Wall-clock Unix time in milliseconds: message timestamps and handshake freshness.
    var wallMillis: Int64 { get }
    func sleep(for duration: Duration) async throws
}
