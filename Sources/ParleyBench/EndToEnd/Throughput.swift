import Foundation
import ParleyCore
import ParleyNode
import Synchronization

/// Messages per second delivered and stored, on loopback: from the first send until every receiver
/// holds every message (checked on each receiver's version vector).
struct Throughput: Sendable {
    let messages: Int
    let seconds: Double
    var perSecond: Double { Double(messages) / seconds }

    /// Each sender sends in bursts of this many concurrent `Node.send` calls, as an application
    /// posting several messages at once; the node commits a burst together.
    static let burst = 64
    /// Bursts a sender has outstanding at once (256 sends). With one, the sender idles while its burst
    /// is stored and pushed, and the receiver while the next one is numbered and signed: the figure
    /// measured that hand-off (about 30 % lower on 2026-11-26) rather than the pipeline.
    static let burstsInFlight = 4
    static let warmUpMessages = 50
    /// Messages per sender sent but not yet stored by every member, at most: a closed loop, as an
    /// application waiting on delivery would run. The node's own flow control paces the network.
    static let window = 1_024

    static func twoNodes(_ scale: Scale, directory: String) async throws -> Throughput {
        let peers = try await BenchPeer.group(2, directory: directory, name: "two")
        return try await BenchPeer.running(peers) {
            let chat = try await BenchPeer.chat(peers, title: "throughput-2")
            return try await run(peers: peers, senders: [peers[0]], chat: chat, messages: scale.throughputMessages)
        }
    }

    /// Each of the 3 members sends a third of the messages; each message goes to the 2 others.
    static func threeNodes(_ scale: Scale, directory: String) async throws -> Throughput {
        let peers = try await BenchPeer.group(3, directory: directory, name: "three")
        return try await BenchPeer.running(peers) {
            let chat = try await BenchPeer.chat(peers, title: "throughput-3")
            return try await run(peers: peers, senders: peers, chat: chat, messages: scale.throughputMessages)
        }
    }

    private static func run(peers: [BenchPeer], senders: [BenchPeer], chat: ChatID, messages: Int) async throws
        -> Throughput
    {
        let perSender = messages / senders.count
        try await send(peers, senders: senders, chat: chat, count: warmUpMessages, window: window)
        try await waitForAll(peers, senders: senders, chat: chat, each: warmUpMessages, timeout: .seconds(30))

        let (_, seconds) = try await Measure.time {
            try await send(peers, senders: senders, chat: chat, count: perSender, window: window)
            try await waitForAll(
                peers, senders: senders, chat: chat, each: warmUpMessages + perSender, timeout: .seconds(300))
        }
        return Throughput(messages: perSender * senders.count, seconds: seconds)
    }

    /// Every sender sends `count` messages in bursts, `burstsInFlight` at a time, waiting before each
    /// burst until at most `window` of its messages would be unstored at a receiver.
    private static func send(_ peers: [BenchPeer], senders: [BenchPeer], chat: ChatID, count: Int, window: Int)
        async throws
    {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for sender in senders {
                let receivers = peers.filter { $0.id != sender.id }
                group.addTask {
                    let first = Int(try sender.contiguous(chat, from: sender.id))
                    var sent = 0
                    let failure = BurstFailure()
                    try await withThrowingTaskGroup(of: Void.self) { outstanding in
                        var running = 0
                        while sent < count {
                            let size = min(burst, count - sent)
                            if running == burstsInFlight { try await outstanding.next(); running -= 1 }
                            try await waitForRoom(
                                sender, receivers: receivers, chat: chat, sent: first + sent + size - window,
                                unless: failure)
                            try failure.rethrow()
                            outstanding.addTask {
                                do { try await sendBurst(size, from: sender, chat: chat) } catch {
                                    failure.record(error)
                                    throw error
                                }
                            }
                            running += 1
                            sent += size
                        }
                        try await outstanding.waitForAll()
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    /// `size` concurrent sends, which the node commits together.
    private static func sendBurst(_ size: Int, from sender: BenchPeer, chat: ChatID) async throws {
        try await withThrowingTaskGroup(of: Void.self) { calls in
            for _ in 0..<size { calls.addTask { _ = try await sender.node.sendText(chat: chat, BenchContent.text) } }
            try await calls.waitForAll()
        }
    }

    /// Waits until the receivers hold all but `window` of what was sent, or a burst in flight failed
    /// (its error, not a timeout, is then the one reported).
    private static func waitForRoom(
        _ sender: BenchPeer, receivers: [BenchPeer], chat: ChatID, sent: Int, unless failure: BurstFailure
    ) async throws {
        guard sent > 0 else { return }
        let room = try await Measure.waitUntil(timeout: .seconds(60), interval: .milliseconds(1)) {
            try failure.happened || receivers.allSatisfy { try $0.contiguous(chat, from: sender.id) >= UInt64(sent) }
        }
        guard room else { throw BenchError("no message was stored for 60 s") }
    }

    private static func waitForAll(
        _ peers: [BenchPeer], senders: [BenchPeer], chat: ChatID, each: Int, timeout: Duration
    ) async throws {
        let done = try await Measure.waitUntil(timeout: timeout, interval: .milliseconds(5)) {
            for peer in peers {
                for sender in senders where try peer.contiguous(chat, from: sender.id) < UInt64(each) { return false }
            }
            return true
        }
        guard done else { throw BenchError("messages were not all delivered within \(timeout)") }
    }
}

/// The first error of a sender's bursts in flight, shared with its loop.
private final class BurstFailure: Sendable {
    private let error = Mutex<(any Error)?>(nil)

    var happened: Bool { error.withLock { $0 != nil } }

    func record(_ failure: any Error) {
        error.withLock { $0 = $0 ?? failure }
    }

    func rethrow() throws {
        if let failure = error.withLock({ $0 }) { throw failure }
    }
}
