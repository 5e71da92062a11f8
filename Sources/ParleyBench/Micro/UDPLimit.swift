import ParleyCore
import ParleyTransport
import Synchronization

/// 200-byte datagrams per second on loopback through the node's own socket layer (`UDPTransport`):
/// one sender, one receiver, with a bounded window in flight so the receiver is not simply flooded.
struct UDPLimit: Sendable {
    let datagramsPerSecond: Double

    static let batch = 64
    static let window = 2_048

    /// `payloadBytes`: 200 for messages; a file's pieces travel in datagrams of about 1,230 bytes.
    static func measure(_ scale: Scale, payloadBytes: Int = CryptoLimits.payloadBytes) async throws -> UDPLimit {
        let receiver = try await UDPTransport.bind(host: "127.0.0.1", port: 0)
        let sender = try await UDPTransport.bind(host: "127.0.0.1", port: 0)
        let total = scale.udpDatagrams
        let payload = [UInt8](repeating: 0xA5, count: payloadBytes)
        let datagrams = Array(repeating: Datagram(address: receiver.localAddress, bytes: payload), count: batch)
        let received = Counter()
        let clock = ContinuousClock()
        let lastArrival = Mutex(clock.now)

        let consumer = Task {
            for await batch in receiver.inbound {
                let count = received.add(batch.count)
                lastArrival.withLock { $0 = clock.now }
                if count >= total { break }
            }
        }
        let start = clock.now
        let deadline = start + scale.microDuration * 10
        var sent = 0
        // Bounded: at most total/batch sends, and the waits stop at the deadline.
        while sent < total, clock.now < deadline {
            if sent - received.value > window {
                try await Task.sleep(for: .microseconds(50))
                continue
            }
            await sender.send(datagrams)
            sent += datagrams.count
        }
        // What is still in flight arrives within a few milliseconds, or was lost.
        _ = try await Measure.waitUntil(timeout: .milliseconds(200), interval: .microseconds(200)) {
            received.value >= sent
        }
        let elapsed = (lastArrival.withLock { $0 } - start).seconds
        consumer.cancel()
        await sender.close()
        await receiver.close()
        return UDPLimit(datagramsPerSecond: Double(received.value) / elapsed)
    }
}

/// A counter shared between tasks.
final class Counter: Sendable {
    private let storage = Atomic<Int>(0)

    var value: Int { storage.load(ordering: .relaxed) }

    /// Adds `n` and returns the new value.
    @discardableResult
    func add(_ n: Int) -> Int { storage.add(n, ordering: .relaxed).newValue }
}
