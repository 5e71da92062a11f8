import ParleyCore
import ParleyNode
import ParleyStore

/// Full-text search on the large store through `Node.search`: the index caught up over every message
/// first (timed), then a fixed set of queries of four shapes, each timed alone, newest 25 hits.
struct SearchLatency: Sendable {
    let messages: Int
    let indexSeconds: Double
    let samples: [Double]
    /// Hits of every query together, to show the queries found something.
    let hits: Int

    var p50Milliseconds: Double { Percentile.of(samples, 0.5) * 1000 }
    var p99Milliseconds: Double { Percentile.of(samples, 0.99) * 1000 }

    /// The queries: a common word, a rare one, a common and a middling one together, a 3-letter
    /// prefix; 50 of each (a fixed seed), the shapes interleaved.
    static func queries() -> [String] {
        var seed: UInt64 = 36
        var queries: [String] = []
        for _ in 0..<50 {
            let pick = { (ranks: Range<Int>) in
                BenchWords.vocabulary[ranks.lowerBound + Int(BenchWords.next(&seed) % UInt64(ranks.count))]
            }
            queries.append(pick(0..<10))
            queries.append(pick(2_000..<BenchWords.count))
            queries.append("\(pick(0..<10)) \(pick(50..<500))")
            queries.append(String(pick(0..<BenchWords.count).prefix(3)))
        }
        return queries
    }

    static func measure(store large: LargeStore, messages: Int) async throws -> SearchLatency {
        let peer = try await BenchPeer.make(identity: large.owner, storePath: large.storePath)
        let measured: Result<SearchLatency, any Error>
        do {
            let (_, indexSeconds) = try await Measure.time {
                try await peer.node.search(text: BenchWords.vocabulary[0], limit: 1)
            }
            var samples: [Double] = []
            var hits = 0
            for query in queries() {
                let (found, seconds) = try await Measure.time { try await peer.node.search(text: query, limit: 25) }
                samples.append(seconds)
                hits += found.count
            }
            measured = .success(
                SearchLatency(messages: messages, indexSeconds: indexSeconds, samples: samples, hits: hits))
        } catch { measured = .failure(error) }
        await peer.node.shutdown()
        let result = try measured.get()
        guard result.hits > 0 else { throw BenchError("no search query found anything in the large store") }
        return result
    }
}
