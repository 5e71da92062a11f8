/// Steps in-process nodes to quiescence, as swift-nio-ssh's back-to-back channels do: it delivers
/// every datagram the nodes sent and lets them handle it, again and again, until the network is
/// quiet; time moves only when the test advances it. A multi-peer test then checks the outcome
/// right after `settle()` instead of polling for it.
///
/// The network must hold datagrams (`InMemoryNetwork(delivery: .held)`), and every node running on
/// it must use one of `clocks`: a node is quiet when its receive loop waits on an empty inbox and its
/// timer loop sleeps on its clock. (Nodes may have clocks of their own, to test clock skew.)
public struct NetworkPump: Sendable {
    public let network: InMemoryNetwork
    public let clocks: [ManualClock]
    /// How many nodes run on the network (each parks one timer loop on its clock when quiet).
    public let nodes: Int

    /// Rounds of delivery before `settle` gives up: far more than any exchange a test makes.
    static let maxRounds = 10_000
    /// Checks for a quiet node before a round gives up: the nodes' own work (signature checks, a
    /// store transaction) happens on other threads, so the pump waits for it without a deadline of time.
    static let maxChecks = 200_000

    public init(network: InMemoryNetwork, clock: ManualClock, nodes: Int) {
        self.init(network: network, clocks: [clock], nodes: nodes)
    }

    public init(network: InMemoryNetwork, clocks: [ManualClock], nodes: Int) {
        self.network = network
        self.clocks = clocks
        self.nodes = nodes
    }

    public struct NeverQuiet: Error, CustomStringConvertible {
        public let description: String
    }

    /// Delivers held datagrams and waits for the nodes to handle them until none are sent any more.
    /// Returns how many datagrams were delivered.
    @discardableResult
    public func settle() async throws -> Int {
        var delivered = 0
        for _ in 0..<Self.maxRounds {
            try await waitUntilNodesWait()
            guard network.hasHeldDatagrams else { return delivered }
            delivered += network.flush()
        }
        throw NeverQuiet(description: "the nodes kept sending after \(Self.maxRounds) rounds (\(delivered) datagrams)")
    }

    /// Moves every clock by `duration`, a `step` at a time, settling after each step: every timer due
    /// in between fires, and what it sends is delivered, in order.
    public func advance(by duration: Duration, step: Duration = .milliseconds(50)) async throws {
        var moved = Duration.zero
        while moved < duration {
            let next = min(step, duration - moved)
            for clock in clocks { clock.advance(by: next) }
            moved += next
            try await settle()
        }
    }

    private func waitUntilNodesWait() async throws {
        for check in 0..<Self.maxChecks {
            if asleep >= nodes, network.endpointsAreIdle { return }
            // Yield first; past that, leave the cores to the store and verify threads a moment.
            if check < 100 { await Task.yield() } else { try await Task.sleep(for: .microseconds(50)) }
        }
        throw NeverQuiet(description: "a node did not become idle (\(asleep) of \(nodes) timers asleep)")
    }

    private var asleep: Int { clocks.reduce(0) { $0 + $1.sleepers } }
}
