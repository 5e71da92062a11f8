import Synchronization

/// Counts of what a `UDPTransport` did or had to throw away, for logs and tests.
public struct TransportStatistics: Hashable, Sendable {
    public var datagramsReceived = 0
    public var datagramsSent = 0
    /// Datagrams that could not be sent: unresolvable host, wrong address family, or a socket error.
    public var sendFailures = 0
    /// Datagrams dropped because the consumer of `inbound` fell more than its capacity behind.
    public var datagramsDropped = 0
    /// Socket errors swallowed so the channel stays open (e.g. ECONNREFUSED reported by ICMP).
    public var socketErrors = 0
    /// Times the main socket died under us and was bound again on the same address.
    public var rebinds = 0

    public init() {}
}

/// The live counters behind `TransportStatistics`, bumped from event loops and read from anywhere.
final class TransportCounters: Sendable {
    let datagramsReceived = Atomic<Int>(0)
    let datagramsSent = Atomic<Int>(0)
    let sendFailures = Atomic<Int>(0)
    let datagramsDropped = Atomic<Int>(0)
    let socketErrors = Atomic<Int>(0)
    let rebinds = Atomic<Int>(0)

    var snapshot: TransportStatistics {
        var statistics = TransportStatistics()
        statistics.datagramsReceived = datagramsReceived.load(ordering: .relaxed)
        statistics.datagramsSent = datagramsSent.load(ordering: .relaxed)
        statistics.sendFailures = sendFailures.load(ordering: .relaxed)
        statistics.datagramsDropped = datagramsDropped.load(ordering: .relaxed)
        statistics.socketErrors = socketErrors.load(ordering: .relaxed)
        statistics.rebinds = rebinds.load(ordering: .relaxed)
        return statistics
    }
}

extension Atomic<Int> {
    func increment(by amount: Int = 1) {
        guard amount != 0 else { return }
        wrappingAdd(amount, ordering: .relaxed)
    }
}
