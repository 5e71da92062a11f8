internal import DequeModule

/// A key of `ReliableQueue`: an item to one lane (a peer), which has its own window.
public protocol LaneKeyed: Hashable, Sendable {
    associatedtype Lane: Hashable & Sendable
    var lane: Lane { get }
}

/// Reliable push with flow control: every item is re-sent until acknowledged, and each lane (a peer)
/// has a window of items in flight, as TCP has. Without one, a sender that outruns its receiver
/// builds a queue whose acks come back after the retransmit timeout; then everything is sent twice
/// and throughput collapses. Plain value state; the node drives it with its clock.
///
/// - The window grows by one per acked item up to the threshold, then by one per window's worth
///   (AIMD), and halves (not below its minimum) at most once per timeout when a retransmit fires.
/// - The timeout follows measured round trips (`RoundTripEstimator`), doubling per retry.
/// - An item overtaken by later acks is sent again at once (fast retransmit, `resendOvertaken`).
/// - Items beyond the window wait in a FIFO backlog and go out as acks make room.
/// - After `maxAttempts` timeouts an item is given up on (sync repairs it). If the lane acked
///   nothing at all since it was pushed, the peer is not answering: the lane's backlog is given up
///   too, and anti-entropy sync delivers those messages once it is back.
public struct ReliableQueue<Key: LaneKeyed, Payload: Sendable>: Sendable {
    public typealias Lane = Key.Lane

    public struct Configuration: Sendable {
        public var initialWindow = 64
        /// Timeouts only take back growth: on a LAN they mostly mean random loss, and a window
        /// below the start starves delivery while lost items wait out their doubled timeouts.
        public var minimumWindow = 64
        public var maximumWindow = 4_096
        /// Items waiting for room, per lane; past it new items are left to sync.
        public var maxBacklog = 65_536
        public var maxAttempts = 12
        public var roundTrip = RoundTripEstimator.Bounds()
        public init() {}
    }

    public typealias Send = (lane: Lane, payload: Payload)

    private struct Flight: Sendable {
        let payload: Payload
        /// Transmissions on timeout, the first one included: they back off and end in giving up.
        var attempts = 1
        /// When it was pushed: a lane that acked nothing since is silent.
        var pushedAt: Duration
        /// The latest transmission, whatever its cause.
        var lastSentAt: Duration
        /// Sent more than once: its ack says nothing about the round trip (Karn).
        var resent = false
        var due: Duration
        /// Its place among the lane's transmissions, for loss detection by later acks.
        var order: UInt64
    }

    private struct LaneState: Sendable {
        var window: Double
        var threshold: Double
        var estimator: RoundTripEstimator
        var inFlight = 0
        var backlog = Deque<(key: Key, payload: Payload)>()
        var lastReduction: Duration?
        var lastAck: Duration?
        /// The estimator gets one sample per round trip: the longest round trip acked since the last
        /// one (`roundLongest`), once a smoothed round trip has passed since it (`lastSampled`). Acks
        /// come a commit's worth at a time: a sample per item fed it hundreds of near-equal samples at
        /// once, which wore its deviation down to nothing, so the timeout shrank to the smoothed round
        /// trip itself and any ack a little later than average looked lost (measured: 6,000-7,000
        /// frames sent again on timeout in each 3-node bench run). The longest, because the timeout is
        /// for the item that waits longest: the first of those a peer acknowledges together.
        var roundLongest: Duration?
        var lastSampled: Duration?
        var nextOrder: UInt64 = 0
        /// Transmissions in order; entries whose flight was acked or sent again are skipped lazily.
        var transmissions = Deque<(order: UInt64, key: Key)>()

        /// Records a transmission of `key` and returns its place.
        mutating func stamp(_ key: Key) -> UInt64 {
            defer { nextOrder += 1 }
            transmissions.append((nextOrder, key))
            return nextOrder
        }
    }

    /// How far behind an acked transmission another may be and still be in flight, not lost.
    static var reorderingAllowance: UInt64 { 3 }
    /// An item waits at least this many times the node's input delay before it is sent again: the
    /// peer's queue and then ours, each with as much again for their spread.
    public static var loadFactor: Int { 4 }

    public let configuration: Configuration
    private var flights: [Key: Flight] = [:]
    private var waiting: Set<Key> = []
    private var lanes: [Lane: LaneState] = [:]

    public init(configuration: Configuration = .init()) { self.configuration = configuration }

    /// Items not yet acknowledged: in flight or waiting for room.
    public var count: Int { flights.count + waiting.count }

    /// Items sent again by `takeDue` since the queue was made (not those its give-ups let out for
    /// the first time, nor fast retransmits).
    public private(set) var resentOnTimeout = 0

    /// How many items `lane` may have in flight now.
    public func window(of lane: Lane) -> Int { Int(lanes[lane]?.window ?? Double(configuration.initialWindow)) }

    public func timeout(of lane: Lane) -> Duration { lanes[lane]?.estimator.timeout ?? configuration.roundTrip.initial }

    /// Queues items and returns those that fit their lane's window, to send now, in order. An item
    /// already in flight is sent again at once, as if new; one already waiting keeps its place.
    public mutating func push(_ items: [(key: Key, payload: Payload)], now: Duration) -> [Send] {
        var sends: [Send] = []
        var touched: Set<Lane> = []
        for (key, payload) in items {
            if flights[key] != nil {
                // Its ack may answer the copy sent before: no round trip can be read from it (Karn).
                flights[key] = Flight(
                    payload: payload, pushedAt: now, lastSentAt: now, resent: true, due: now + timeout(of: key.lane),
                    order: lanes[key.lane]?.stamp(key) ?? 0)
                sends.append((key.lane, payload))
                continue
            }
            guard !waiting.contains(key) else { continue }
            var state = takeLane(key.lane) ?? newLane()
            defer { lanes[key.lane] = state }
            guard state.backlog.count < configuration.maxBacklog else { continue }
            state.backlog.append((key, payload))
            waiting.insert(key)
            touched.insert(key.lane)
        }
        return sends + touched.flatMap { release($0, now: now) }
    }

    /// Marks items acknowledged and returns what to send now: items the acks show lost, and those
    /// the room they free lets out. An ack for an item no longer tracked still shows the lane alive.
    public mutating func acknowledge(_ keys: [Key], now: Duration) -> [Send] {
        var newestAcked: [Lane: UInt64] = [:]
        for key in keys {
            lanes[key.lane]?.lastAck = now
            if waiting.remove(key) != nil { continue } // it reached the peer another way (sync)
            guard let flight = flights.removeValue(forKey: key), var state = takeLane(key.lane) else { continue }
            newestAcked[key.lane] = max(newestAcked[key.lane] ?? 0, flight.order)
            state.inFlight -= 1
            if !flight.resent { state.roundLongest = max(state.roundLongest ?? .zero, now - flight.pushedAt) }
            state.window += state.window < state.threshold ? 1 : 1 / state.window
            state.window = min(state.window, Double(configuration.maximumWindow))
            lanes[key.lane] = state
        }
        for lane in newestAcked.keys { sampleRoundTrip(lane, now: now) }
        return newestAcked.flatMap { lane, newest in
            resendOvertaken(lane, newest: newest, now: now) + release(lane, now: now)
        }
    }

    /// Items whose timeout passed, to send again now. Each lane that timed out halves its window,
    /// at most once per timeout; an item past its last attempt is given up, with its lane's backlog
    /// if the lane acked nothing since that item was pushed.
    ///
    /// `inputDelay` is how long this node's own input waits before it is handled
    /// (`DatagramInbox.queueDelay`). An overloaded node hears every ack that late, and its peers,
    /// as loaded, answer as late: nothing is sent again before `loadFactor` times that (at most the
    /// maximum timeout) since it was last sent. The round-trip estimate cannot see this in time:
    /// when a hundred members on one machine vote at once, the first acks come back seconds later,
    /// after every vote had been sent three more times to every member.
    public mutating func takeDue(now: Duration, inputDelay: Duration = .zero) -> [Send] {
        let patience = min(inputDelay * Self.loadFactor, configuration.roundTrip.maximum)
        var sends: [Send] = []
        var timedOut: Set<Lane> = []
        var gaveUp: Set<Lane> = []
        var silent: Set<Lane> = []
        for (key, var flight) in flights where flight.due <= now {
            if now - flight.lastSentAt < patience {
                flight.due = flight.lastSentAt + patience
                flights[key] = flight
                continue
            }
            guard flight.attempts < configuration.maxAttempts else {
                flights[key] = nil
                lanes[key.lane]?.inFlight -= 1
                if (lanes[key.lane]?.lastAck).map({ $0 < flight.pushedAt }) ?? true { silent.insert(key.lane) }
                gaveUp.insert(key.lane)
                continue
            }
            flight.attempts += 1
            flight.resent = true
            flight.lastSentAt = now
            let backoff = timeout(of: key.lane) * (1 << min(flight.attempts - 1, 16))
            flight.due = now + min(backoff, configuration.roundTrip.maximum)
            flight.order = lanes[key.lane]?.stamp(key) ?? 0
            flights[key] = flight
            timedOut.insert(key.lane)
            sends.append((key.lane, flight.payload))
        }
        resentOnTimeout += sends.count
        for lane in timedOut { reduceWindow(lane, now: now) }
        for lane in silent {
            guard var state = takeLane(lane) else { continue }
            for item in state.backlog { waiting.remove(item.key) }
            state.backlog.removeAll()
            lanes[lane] = state
        }
        // Given-up items free room in a lane that is still answering.
        return sends + gaveUp.subtracting(silent).flatMap { release($0, now: now) }
    }

    /// Fast retransmit: an item sent `reorderingAllowance` or more transmissions before one just
    /// acked is taken as lost and sent again now, instead of holding a window slot until its timeout
    /// (which doubles per retry: under heavy random loss that tail, not the window, bounds delivery).
    /// Random loss on a LAN is not congestion, so this does not shrink the window; timeouts do. Nor
    /// is it an attempt: it stays off the timeout schedule, so a message the peer never acks (it
    /// refuses it) is still given up while other acks flow, and it happens at most once per round trip.
    private mutating func resendOvertaken(_ lane: Lane, newest: UInt64, now: Duration) -> [Send] {
        guard var state = takeLane(lane) else { return [] }
        var sends: [Send] = []
        while let first = state.transmissions.first {
            guard var flight = flights[first.key], flight.order == first.order else {
                state.transmissions.removeFirst() // acked or sent again since
                continue
            }
            guard first.order + Self.reorderingAllowance <= newest else { break }
            state.transmissions.removeFirst()
            if let roundTrip = state.estimator.smoothedRoundTrip, now - flight.lastSentAt < roundTrip { continue }
            flight.resent = true
            flight.lastSentAt = now
            flight.order = state.stamp(first.key)
            flights[first.key] = flight
            sends.append((lane, flight.payload))
        }
        lanes[lane] = state
        return sends
    }

    /// Takes a lane's state out of `lanes` to change it; the caller puts it back. A copy left in the
    /// dictionary would share the deques' buffers, so the first append or pop would copy them whole:
    /// once per push and per ack, which the profile showed as a tenth of a busy node's time.
    private mutating func takeLane(_ lane: Lane) -> LaneState? {
        lanes.removeValue(forKey: lane)
    }

    /// Hands the lane's estimator the longest round trip acked this round, once the round is over.
    private mutating func sampleRoundTrip(_ lane: Lane, now: Duration) {
        guard var state = takeLane(lane) else { return }
        defer { lanes[lane] = state }
        guard let longest = state.roundLongest else { return }
        if let last = state.lastSampled, now - last < state.estimator.smoothedRoundTrip ?? .zero { return }
        state.estimator.record(longest)
        state.roundLongest = nil
        state.lastSampled = now
    }

    private func newLane() -> LaneState {
        LaneState(
            window: Double(configuration.initialWindow), threshold: Double(configuration.maximumWindow),
            estimator: RoundTripEstimator(bounds: configuration.roundTrip))
    }

    private mutating func reduceWindow(_ lane: Lane, now: Duration) {
        guard var state = takeLane(lane) else { return }
        defer { lanes[lane] = state }
        if let last = state.lastReduction, now - last < state.estimator.timeout { return }
        state.threshold = max(state.window / 2, Double(configuration.minimumWindow))
        state.window = state.threshold
        state.lastReduction = now
    }

    /// Moves waiting items into flight while the lane's window has room.
    private mutating func release(_ lane: Lane, now: Duration) -> [Send] {
        guard var state = takeLane(lane) else { return [] }
        var sends: [Send] = []
        while state.inFlight < Int(state.window), let next = state.backlog.popFirst() {
            guard waiting.remove(next.key) != nil else { continue } // acknowledged while waiting
            flights[next.key] = Flight(
                payload: next.payload, pushedAt: now, lastSentAt: now, due: now + state.estimator.timeout,
                order: state.stamp(next.key))
            state.inFlight += 1
            sends.append((lane, next.payload))
        }
        lanes[lane] = state
        return sends
    }
}
