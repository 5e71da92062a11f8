public import ParleyCore
import Synchronization

/// A simulated LAN for in-process peers: datagrams are dropped, duplicated and reordered at
/// the configured rates, from a seeded generator so a failing run can be replayed.
public final class InMemoryNetwork: Sendable {
    public struct Conditions: Sendable {
        public var lossRate: Double
        public var duplicateRate: Double
        public var reorder: Bool
        /// Groups of endpoints cut off from each other: a datagram between two endpoints in different
        /// groups is dropped (an endpoint in no group reaches every other). Empty: no partition.
        public var partition: [Set<PeerAddress>]
        /// The hops from any endpoint to any other (routers on the way, plus one): a datagram sent with
        /// a smaller hop limit dies on the way, as a rendezvous opening does past its own router
        /// (PROTOCOL.md §12a).
        public var hops: UInt8

        public init(
            lossRate: Double = 0, duplicateRate: Double = 0, reorder: Bool = false, partition: [Set<PeerAddress>] = [],
            hops: UInt8 = 1
        ) {
            self.lossRate = lossRate
            self.duplicateRate = duplicateRate
            self.reorder = reorder
            self.partition = partition
            self.hops = hops
        }
    }

    /// How sent datagrams travel: at once, or held until `flush` (what a `NetworkPump` steps).
    public enum Delivery: Sendable {
        case immediate
        case held
    }

    private struct State {
        var endpoints: [PeerAddress: DatagramInbox] = [:]
        var held: [(source: PeerAddress, batch: [Datagram])] = []
        var random: SplitMix64
        var conditions: Conditions
        var nextPort: UInt16 = 10_000
        var delivered = 0
        var dropped = 0
    }

    private let state: Mutex<State>
    private let delivery: Delivery

    public init(conditions: Conditions = .init(), seed: UInt64 = 1, delivery: Delivery = .immediate) {
        state = Mutex(State(random: SplitMix64(seed: seed), conditions: conditions))
        self.delivery = delivery
    }

    public var conditions: Conditions {
        get { state.withLock { $0.conditions } }
        set { state.withLock { $0.conditions = newValue } }
    }

    public var counts: (delivered: Int, dropped: Int) { state.withLock { ($0.delivered, $0.dropped) } }

    /// A new endpoint with its own address on this network.
    public func makeTransport() -> InMemoryTransport {
        // No queueing delay: a test's clock is its own, and the pump hands every datagram over at once.
        let inbox = DatagramInbox(now: { .zero })
        let address = state.withLock { state in
            let address = PeerAddress(host: "10.99.0.1", port: state.nextPort)
            state.nextPort += 1
            state.endpoints[address] = inbox
            return address
        }
        return InMemoryTransport(network: self, localAddress: address, inbound: inbox)
    }

    func send(_ batch: [Datagram], from source: PeerAddress) {
        switch delivery {
        case .immediate: deliver(batch, from: source)
        case .held: state.withLock { $0.held.append((source, batch)) }
        }
    }

    /// Whether datagrams are held, waiting for `flush`.
    public var hasHeldDatagrams: Bool { state.withLock { !$0.held.isEmpty } }

    /// Every endpoint's consumer waits with nothing to read.
    public var endpointsAreIdle: Bool { state.withLock { $0.endpoints.values.allSatisfy(\.isIdle) } }

    /// Delivers every held datagram (under the network's conditions), in the order sent; returns how many were held.
    @discardableResult
    public func flush() -> Int {
        let held = state.withLock { state in
            defer { state.held = [] }
            return state.held
        }
        for (source, batch) in held { deliver(batch, from: source) }
        return held.reduce(0) { $0 + $1.batch.count }
    }

    private func deliver(_ batch: [Datagram], from source: PeerAddress) {
        let deliveries: [(DatagramInbox, [Datagram])] = state.withLock { state in
            var byDestination: [PeerAddress: [Datagram]] = [:]
            for datagram in batch {
                guard state.endpoints[datagram.address] != nil else { continue }
                if state.conditions.separates(source, datagram.address)
                    || datagram.hopLimit.map({ $0 < state.conditions.hops }) == true
                {
                    state.dropped += 1
                    continue
                }
                if state.random.nextUnit() < state.conditions.lossRate {
                    state.dropped += 1
                    continue
                }
                let copies = state.random.nextUnit() < state.conditions.duplicateRate ? 2 : 1
                for _ in 0..<copies {
                    byDestination[datagram.address, default: []].append(
                        Datagram(address: source, bytes: datagram.bytes))
                    state.delivered += 1
                }
            }
            return byDestination.compactMap { destination, datagrams in
                guard let inbox = state.endpoints[destination] else { return nil }
                var datagrams = datagrams
                if state.conditions.reorder { state.random.shuffle(&datagrams) }
                return (inbox, datagrams)
            }
        }
        for (inbox, datagrams) in deliveries { inbox.deliver(datagrams) }
    }

    func detach(_ address: PeerAddress) {
        state.withLock { $0.endpoints.removeValue(forKey: address) }?.finish()
    }
}

extension InMemoryNetwork.Conditions {
    /// Whether the partition cuts `a` off from `b`.
    func separates(_ a: PeerAddress, _ b: PeerAddress) -> Bool {
        guard let side = partition.firstIndex(where: { $0.contains(a) }),
            let other = partition.firstIndex(where: { $0.contains(b) })
        else {
            return false
        }
        return side != other
    }
}

/// One peer's endpoint on an `InMemoryNetwork`.
public struct InMemoryTransport: DatagramTransport {
    let network: InMemoryNetwork
    public let localAddress: PeerAddress
    public let inbound: DatagramInbox
    public var discoveryTarget: PeerAddress? { nil }

    public func send(_ batch: [Datagram]) async { network.send(batch, from: localAddress) }
    public func close() async { network.detach(localAddress) }
}

/// A small seeded generator (SplitMix64): reproducible loss patterns and test choices.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func nextUnit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    mutating func shuffle<T>(_ items: inout [T]) {
        guard items.count > 1 else { return }
        for index in stride(from: items.count - 1, to: 0, by: -1) {
            items.swapAt(index, Int(next() % UInt64(index + 1)))
        }
    }
}
