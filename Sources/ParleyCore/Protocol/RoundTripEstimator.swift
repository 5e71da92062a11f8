/// Retransmission timeout from measured round trips (RFC 6298): smoothed RTT plus four deviations,
/// clamped. Only first transmissions are sampled (Karn), so a late ack of a retry cannot shrink it.
public struct RoundTripEstimator: Sendable, Hashable {
    public struct Bounds: Sendable, Hashable {
        /// Before any sample; also the floor's worth of patience for a peer never heard from.
        public var initial: Duration = .milliseconds(200)
        /// A receiver batches acks behind one store commit, which takes a few milliseconds.
        public var minimum: Duration = .milliseconds(50)
        public var maximum: Duration = .seconds(4)
        public init() {}
    }

    public let bounds: Bounds
    private var smoothed: Duration?
    private var deviation: Duration = .zero

    public init(bounds: Bounds = .init()) { self.bounds = bounds }

    public var smoothedRoundTrip: Duration? { smoothed }

    public var timeout: Duration {
        guard let smoothed else { return bounds.initial }
        return min(max(smoothed + deviation * 4, bounds.minimum), bounds.maximum)
    }

    public mutating func record(_ sample: Duration) {
        let sample = max(sample, .zero)
        guard let current = smoothed else {
            smoothed = sample
            deviation = sample / 2
            return
        }
        let error = current > sample ? current - sample : sample - current
        deviation = deviation * 3 / 4 + error / 4
        smoothed = current * 7 / 8 + sample / 8
    }
}
