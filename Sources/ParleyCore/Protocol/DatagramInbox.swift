internal import DequeModule
import Synchronization

/// Where a transport leaves the datagrams it reads, for its one consumer (the node). A consumer
/// that was busy gets what arrived meanwhile as one batch (up to `maxBatch`), not the many small
/// read cycles it came in: under load, the per-batch costs (one fan-out of signature checks, one
/// store transaction) are paid once for many datagrams.
public final class DatagramInbox: AsyncSequence, Sendable {
    public typealias Element = [Datagram]

    /// Datagrams held for a consumer that fell behind; more are dropped (and counted by the caller).
    public static let defaultCapacity = 65_536
    /// The most one batch hands over: about 1,000 messages, enough to amortise a transaction, small
    /// enough that checking the next batch overlaps storing this one (see `Node.receiveLoop`).
    public static let maxBatch = 256

    private typealias Waiter = (token: UInt64, continuation: CheckedContinuation<[Datagram]?, Never>)

    private struct State {
        var pending = Deque<Datagram>()
        var waiting: Waiter?
        var nextToken: UInt64 = 0
        var finished = false
        /// When each read's datagrams arrived: the datagrams delivered so far once that read is in
        /// (`end`), and the time. Only reads with a datagram still pending are kept.
        var arrivals = Deque<(end: UInt64, at: Duration)>()
        var delivered: UInt64 = 0
        var taken: UInt64 = 0
        /// How long the oldest datagram of the last batch taken had waited.
        var lastBatchWait: Duration = .zero
        /// Work of the consumer's still running beside its wait for input (`besideBegins`).
        var beside = 0
        /// When the oldest datagram taken while work ran beside arrived: that batch waits for the work
        /// before it is handled, so until `besideEnds` its wait counts in `queueDelay`.
        var heldSince: Duration?
        /// Work the consumer handed to a task of its own (`offPathWorkBegins`): input does not wait
        /// for it, but the consumer is not quiet until it is done.
        var offPath = 0

        mutating func take(now: Duration) -> [Datagram] {
            let count = Swift.min(pending.count, DatagramInbox.maxBatch)
            defer {
                pending.removeFirst(count)
                taken += UInt64(count)
                while let first = arrivals.first, first.end <= taken { arrivals.removeFirst() }
            }
            if count > 0, let oldest = arrivals.first {
                lastBatchWait = Swift.max(.zero, now - oldest.at)
                if beside > 0, heldSince == nil { heldSince = oldest.at }
            }
            return Array(pending.prefix(count))
        }
    }

    private let state = Mutex(State())
    private let capacity: Int
    private let now: @Sendable () -> Duration

    /// `now` is a monotonic time for `queueDelay`; by default the continuous clock's.
    public init(capacity: Int = defaultCapacity, now: @escaping @Sendable () -> Duration = DatagramInbox.continuousNow)
    {
        self.capacity = capacity
        self.now = now
    }

    /// Time since the first use, on the continuous clock: monotonic, and the same for every inbox.
    public static let continuousNow: @Sendable () -> Duration = {
        let origin = ContinuousClock.now
        return { ContinuousClock.now - origin }
    }()

    /// How long input waits here before its consumer gets to it: the wait of the oldest datagram still
    /// pending, of a batch taken while work ran beside (it waits for that work), or of the batch the
    /// consumer is handling; zero while it waits for input with nothing running beside. A sender
    /// whose own acks wait this long can expect its peers' to wait as long, so it holds its
    /// retransmits back that much (`ReliableQueue.takeDue`).
    public var queueDelay: Duration {
        let now = now()
        return state.withLock { state in
            if state.waiting != nil, state.pending.isEmpty, state.beside == 0 { return .zero }
            let pendingWait = state.arrivals.first.map { Swift.max(.zero, now - $0.at) } ?? .zero
            let heldWait = state.heldSince.map { Swift.max(.zero, now - $0) } ?? .zero
            return Swift.max(state.lastBatchWait, pendingWait, heldWait)
        }
    }

    /// Adds the datagrams of one read; returns how many did not fit (or came after `finish`).
    @discardableResult
    public func deliver(_ datagrams: [Datagram]) -> Int {
        guard !datagrams.isEmpty else { return 0 }
        let now = now()
        let (handOver, dropped) = state.withLock { state -> ((Waiter, [Datagram])?, Int) in
            guard !state.finished else { return (nil, datagrams.count) }
            let accepted = Swift.min(datagrams.count, capacity - state.pending.count)
            state.pending += datagrams.prefix(accepted)
            if accepted > 0 {
                state.delivered += UInt64(accepted)
                state.arrivals.append((state.delivered, now))
            }
            guard let waiting = state.waiting else { return (nil, datagrams.count - accepted) }
            state.waiting = nil
            return ((waiting, state.take(now: now)), datagrams.count - accepted)
        }
        if let (waiting, batch) = handOver { waiting.continuation.resume(returning: batch) }
        return dropped
    }

    /// Ends the sequence once what is pending has been taken.
    public func finish() {
        let waiting = state.withLock { state in
            state.finished = true
            defer { state.waiting = nil }
            return state.waiting
        }
        waiting?.continuation.resume(returning: nil)
    }

    /// Its consumer is waiting, nothing is pending and none of its work runs beside or off its path:
    /// everything delivered so far has been taken and handled. Lets a test pump tell a quiet node.
    public var isIdle: Bool {
        state.withLock { $0.waiting != nil && $0.pending.isEmpty && $0.beside == 0 && $0.offPath == 0 }
    }

    /// The consumer handed work on what it took to another task (the node checks ballot envelopes
    /// off its receive path): input does not wait for it, so `queueDelay` ignores it, but until the
    /// matching `offPathWorkEnds` the consumer is not idle.
    public func offPathWorkBegins() { state.withLock { $0.offPath += 1 } }

    /// The work announced by `offPathWorkBegins` is done.
    public func offPathWorkEnds() {
        state.withLock { state in
            precondition(state.offPath > 0, "offPathWorkEnds without offPathWorkBegins")
            state.offPath -= 1
        }
    }

    /// The consumer goes on waiting for input while work on what it took runs on (the node commits a
    /// burst while it waits for the next batch, so that one is checked beside the commit instead of
    /// after it): until the matching `besideEnds`, the consumer is not idle.
    public func besideBegins() { state.withLock { $0.beside += 1 } }

    /// The work announced by `besideBegins` is done. A batch taken meanwhile is handled from now on,
    /// and what it waited counts as its wait.
    public func besideEnds() {
        let now = now()
        state.withLock { state in
            precondition(state.beside > 0, "besideEnds without besideBegins")
            state.beside -= 1
            guard state.beside == 0, let held = state.heldSince else { return }
            state.lastBatchWait = Swift.max(state.lastBatchWait, now - held)
            state.heldSince = nil
        }
    }

    /// Whether work announced by `besideBegins` still runs.
    public var hasWorkBeside: Bool { state.withLock { $0.beside > 0 } }

    /// Everything pending (up to `maxBatch`) if anything is, without waiting.
    public func poll() -> [Datagram]? {
        let now = now()
        return state.withLock { $0.pending.isEmpty ? nil : $0.take(now: now) }
    }

    /// Everything pending (up to `maxBatch`), waiting for something if nothing is; nil once finished
    /// and drained, when the calling task is cancelled, or for a second consumer while one waits.
    public func next() async -> [Datagram]? {
        if Task.isCancelled { return nil }
        if let ready = poll() { return ready }
        let token = state.withLock { state in
            defer { state.nextToken &+= 1 }
            return state.nextToken
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<[Datagram]?, Never>) in
                let now = now()
                let immediate = state.withLock { state -> [Datagram]?? in
                    if !state.pending.isEmpty { return .some(state.take(now: now)) }
                    if state.finished || Task.isCancelled || state.waiting != nil { return .some(nil) }
                    state.waiting = (token, continuation)
                    return .none
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let waiting = state.withLock { state -> Waiter? in
                guard let waiting = state.waiting, waiting.token == token else { return nil }
                state.waiting = nil
                return waiting
            }
            waiting?.continuation.resume(returning: nil)
        }
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let inbox: DatagramInbox
        public mutating func next() async -> [Datagram]? { await inbox.next() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(inbox: self) }
}
