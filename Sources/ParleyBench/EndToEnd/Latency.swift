import ParleyCore
import ParleyNode
import ParleyStore
import Synchronization

/// Send-to-stored latency on idle loopback: one message in flight at a time, from just before
/// `Node.send` to the moment the receiver's store announces the commit that stored it
/// (`MessageStore.arrivals`, what a live `parley open` follows).
struct Latency: Sendable {
    let samples: [Double]
    let lost: Int

    var p50Milliseconds: Double { Percentile.of(samples, 0.5) * 1000 }
    var p99Milliseconds: Double { Percentile.of(samples, 0.99) * 1000 }

    static let warmUp = 20
    /// The loopback is idle between samples: the previous message's acks and bookkeeping are done.
    static let pause = Duration.milliseconds(2)

    static func measure(_ scale: Scale, directory: String) async throws -> Latency {
        let peers = try await BenchPeer.group(2, directory: directory, name: "latency")
        let (sender, receiver) = (peers[0], peers[1])
        return try await BenchPeer.running(peers) {
            let chat = try await BenchPeer.chat(peers, title: "latency")
            let clock = ContinuousClock()
            // The observer stamps each newly stored message as soon as its commit is announced.
            let arrivals = Arrivals()
            let arrivalStream = receiver.node.arrivals(chat: chat)
            return try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await batch in arrivalStream {
                        let now = clock.now
                        arrivals.stamps.withLock { stamps in for id in batch.ids { stamps[id] = now } }
                    }
                }
                defer { group.cancelAll() }
                return try await sample(scale, from: sender, in: chat, arrivals: arrivals, clock: clock)
            }
        }
    }

    private static func sample(
        _ scale: Scale, from sender: BenchPeer, in chat: ChatID, arrivals: Arrivals,
        clock: ContinuousClock
    ) async throws -> Latency {
        var samples: [Double] = []
        var lost = 0
        for index in 0..<(warmUp + scale.latencySamples) {
            try await Task.sleep(for: pause)
            let start = clock.now
            let sent = try await sender.node.sendText(chat: chat, BenchContent.text)
            // The stamp is taken by the observer, so how often this checks does not change the figure.
            _ = try await Measure.waitUntil(timeout: .seconds(2), interval: .microseconds(100)) {
                arrivals.stamps.withLock { $0[sent.message.id] != nil }
            }
            guard let stored = arrivals.stamps.withLock({ $0.removeValue(forKey: sent.message.id) }) else {
                lost += 1
                continue
            }
            if index >= warmUp { samples.append((stored - start).seconds) }
        }
        return Latency(samples: samples, lost: lost)
    }
}

/// When each message was seen stored, shared by the observer and the sampling loop.
final class Arrivals: Sendable {
    let stamps = Mutex<[MessageID: ContinuousClock.Instant]>([:])
}
