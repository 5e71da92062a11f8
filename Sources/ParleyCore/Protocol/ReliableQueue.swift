public import DequeModule

/// Reliable push with flow control: every item is re-sent until acknowledged, and each lane (a peer)
/// has a window of items in flight, as TCP has. Without one, a sender that outruns its receiver
/// builds a queue whose acks come back after the retransmit timeout; then everything is sent twice
/// and throughput collapses. Plain value state; the node drives it with its clock.
///
/// - The window grows by one per acked item up to the threshold, then by one per window's worth
///   (AIMD), and halves at most once per timeout when a retransmit fires.
/// - The timeout follows measured round trips (`RoundTripEstimator`), doubling per retry.
/// - Items beyond the window wait in a FIFO backlog and go out as acks make room.
/// - After `maxAttempts` an item is given up on, and so is the lane's backlog: the peer is not
///   answering, and anti-entropy sync delivers those messages once it is back.
public struct ReliableQueue<Key: Hashable & Sendable, Lane: Hashable & Sendable, Payload: Sendable>: Sendable {
    public struct Configuration: Sendable {
        public var initialWindow = 64
        public var minimumWindow = 8
        public var maximumWindow = 4_096
        /// Items waiting for room, per lane; past it new items are left to sync.
        public var maxBacklog = 65_536
        public var maxAttempts = 12
        public var roundTrip = RoundTripEstimator.Bounds()
        public init() {}
    }

    public typealias Send = (lane: Lane, payload: Payload)

    private struct Flight: Sendable {
        let lane: Lane
        let payload: Payload
        var attempts: Int
        var sentAt: Duration
        var due: Duration
    }

    private struct LaneState: Sendable {
        var window: Double
        var threshold: Double
        var estimator: RoundTripEstimator
        var inFlight = 0
        var backlog = Deque<(key: Key, payload: Payload)>()
        var lastReduction: Duration?
    }

    public let configuration: Configuration
    private var flights: [Key: Flight] = [:]
    private var waiting: Set<Key> = []
    private var lanes: [Lane: LaneState] = [:]

    public init(configuration: Configuration = .init()) { self.configuration = configuration }

    /// Items not yet acknowledged: in flight or waiting for room.
    public var count: Int { flights.count + waiting.count }

    /// How many items `lane` may have in flight now.
    public func window(of lane: Lane) -> Int { Int(lanes[lane]?.window ?? Double(configuration.initialWindow)) }

    public func timeout(of lane: Lane) -> Duration { lanes[lane]?.estimator.timeout ?? configuration.roundTrip.initial }

    /// Queues items and returns those that fit their lane's window, to send now, in order. An item
    /// already in flight is sent again at once; one already waiting keeps its place.
    public mutating func push(_ items: [(key: Key, lane: Lane, payload: Payload)], now: Duration) -> [Send] {
        var sends: [Send] = []
        var touched: Set<Lane> = []
        for (key, lane, payload) in items {
            if var flight = flights[key] {
                flight.sentAt = now
                flight.due = now + timeout(of: flight.lane)
                flights[key] = flight
                sends.append((flight.lane, payload))
                continue
            }
            guard !waiting.contains(key) else { continue }
            var state = lanes[lane] ?? newLane()
            guard state.backlog.count < configuration.maxBacklog else { continue }
            state.backlog.append((key, payload))
            waiting.insert(key)
            lanes[lane] = state
            touched.insert(lane)
        }
        return sends + touched.flatMap { release($0, now: now) }
    }

    /// Marks items acknowledged and returns what the room they free lets out. Unknown keys are ignored.
    public mutating func acknowledge(_ keys: [Key], now: Duration) -> [Send] {
        var touched: Set<Lane> = []
        for key in keys {
            if waiting.remove(key) != nil { continue } // it reached the peer another way (sync)
            guard let flight = flights.removeValue(forKey: key), var state = lanes[flight.lane] else { continue }
            state.inFlight -= 1
            if flight.attempts == 1 { state.estimator.record(now - flight.sentAt) }
            state.window += state.window < state.threshold ? 1 : 1 / state.window
            state.window = min(state.window, Double(configuration.maximumWindow))
            lanes[flight.lane] = state
            touched.insert(flight.lane)
        }
        return touched.flatMap { release($0, now: now) }
    }

    /// Items whose timeout passed, to send again now. Each lane that timed out halves its window,
    /// at most once per timeout; an item past its last attempt is given up with its lane's backlog.
    public mutating func takeDue(now: Duration) -> [Send] {
        var sends: [Send] = []
        var timedOut: Set<Lane> = []
        var gaveUp: Set<Lane> = []
        for (key, var flight) in flights where flight.due <= now {
            guard flight.attempts < configuration.maxAttempts else {
                flights[key] = nil
                lanes[flight.lane]?.inFlight -= 1
                gaveUp.insert(flight.lane)
                continue
            }
            flight.attempts += 1
            let backoff = timeout(of: flight.lane) * (1 << min(flight.attempts - 1, 16))
            flight.due = now + min(backoff, configuration.roundTrip.maximum)
            flights[key] = flight
            timedOut.insert(flight.lane)
            sends.append((flight.lane, flight.payload))
        }
        for lane in timedOut { reduceWindow(lane, now: now) }
        for lane in gaveUp {
            guard var state = lanes[lane] else { continue }
            for item in state.backlog { waiting.remove(item.key) }
            state.backlog.removeAll()
            lanes[lane] = state
        }
        return sends
    }

    private func newLane() -> LaneState {
        LaneState(
            window: Double(configuration.initialWindow), threshold: Double(configuration.maximumWindow),
            estimator: RoundTripEstimator(bounds: configuration.roundTrip))
    }

    private mutating func reduceWindow(_ lane: Lane, now: Duration) {
        guard var state = lanes[lane] else { return }
        if let last = state.lastReduction, now - last < state.estimator.timeout { return }
        state.threshold = max(state.window / 2, Double(configuration.minimumWindow))
        state.window = state.threshold
        state.lastReduction = now
        lanes[lane] = state
    }

    /// Moves waiting items into flight while the lane's window has room.
    private mutating func release(_ lane: Lane, now: Duration) -> [Send] {
        guard var state = lanes[lane] else { return [] }
        var sends: [Send] = []
        while state.inFlight < Int(state.window), let next = state.backlog.popFirst() {
            guard waiting.remove(next.key) != nil else { continue } // acknowledged while waiting
            flights[next.key] = Flight(lane: lane, payload: next.payload, attempts: 1, sentAt: now, due: now + state.estimator.timeout)
            state.inFlight += 1
            sends.append((lane, next.payload))
        }
        lanes[lane] = state
        return sends
    }
}
