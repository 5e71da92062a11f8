/// Small timing helpers. Every loop here is bounded by a count and a deadline.
enum Measure {
    static let clock = ContinuousClock()

    static let maxRounds = 10_000_000

    /// Calls `body` in rounds of `batch` until `duration` has passed (at most `maxRounds` rounds) and
    /// returns calls per second.
    static func rate(for duration: Duration, batch: Int, _ body: () throws -> Void) rethrows -> Double {
        let start = clock.now
        var calls = 0
        var elapsed = Duration.zero
        for _ in 0..<maxRounds {
            for _ in 0..<batch { try body() }
            calls += batch
            elapsed = clock.now - start
            if elapsed >= duration { break }
        }
        return Double(calls) / elapsed.seconds
    }

    /// Seconds `body` takes.
    static func time<T>(_ body: () async throws -> T) async rethrows -> (T, Double) {
        let start = clock.now
        let result = try await body()
        return (result, (clock.now - start).seconds)
    }

    /// The median of `repetitions` timings of `body`, in seconds.
    static func median(_ repetitions: Int, _ body: () throws -> Void) rethrows -> Double {
        var samples: [Double] = []
        for _ in 0..<max(1, repetitions) {
            let start = clock.now
            try body()
            samples.append((clock.now - start).seconds)
        }
        return Percentile.of(samples, 0.5)
    }

    /// Polls `condition` every `interval` until it holds or `timeout` passes; returns whether it held.
    static func waitUntil(
        timeout: Duration, interval: Duration = .milliseconds(2), _ condition: () async throws -> Bool
    ) async throws -> Bool {
        let deadline = clock.now + timeout
        while clock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: interval)
        }
        return try await condition()
    }
}

enum Percentile {
    /// The `p` quantile (0…1) by the nearest-rank method; 0 for no samples.
    static func of(_ samples: [Double], _ p: Double) -> Double {
        guard !samples.isEmpty else { return 0 }
        let sorted = samples.sorted()
        let rank = Int((p * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}

extension Duration {
    var seconds: Double {
        let (s, attoseconds) = components
        return Double(s) + Double(attoseconds) / 1e18
    }
}

/// The benchmark failed to set something up (a node that never joined, a child that never answered).
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
