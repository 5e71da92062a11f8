#if canImport(Glibc)
    import Glibc
#endif
public import ParleyCore

/// The real clock: monotonic time from `ContinuousClock`, wall time from `CLOCK_REALTIME`.
public struct SystemClock: NodeClock {
    private let origin = ContinuousClock.now

    /// A clock whose monotonic origin is now.
    public init() {}

    /// Time since this clock was created.
    public var now: Duration { ContinuousClock.now - origin }

    /// Unix time in milliseconds.
    public var wallMillis: Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }

    /// Suspends for `duration`; throws if the task is cancelled.
    public func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }
}
