import Synchronization

/// Runs concurrent submissions through one `commit` call per batch, as databases do group commit:
/// a send costs a store transaction and an engine hop, and callers sending at once share them.
///
/// No task is spawned. The first caller to find the queue idle leads (after one yield when the batch
/// before held several: see `submit`): it commits its own item with every item queued so far (up to
/// `maxBatch`), passes the lead to the oldest waiter still queued, hands the batch's other callers
/// their results, and only then runs the batch's follow-up (the push), after the follow-ups of the
/// batches before it. So the next batch is numbered and stored while this one is pushed, and batches
/// still reach the network in the order they were stored; the callers it freed can queue more meanwhile. Each caller does at most one batch of work, in FIFO order.
final class GroupCommit<Item: Sendable, Output: Sendable>: Sendable {
    /// A committed batch: each item's result, and what must follow it in batch order.
    struct Committed: Sendable {
        let results: [Result<Output, any Error>]
        let followUp: @Sendable () async -> Void

        init(results: [Result<Output, any Error>], followUp: @escaping @Sendable () async -> Void = {}) {
            self.results = results
            self.followUp = followUp
        }
    }

    typealias Commit = @Sendable ([Item]) async -> Committed

    private enum Turn: Sendable {
        case done(Result<Output, any Error>)
        case lead
    }

    private struct Waiter {
        let item: Item
        let continuation: CheckedContinuation<Turn, Never>
    }

    private struct State {
        var queue: [Waiter] = []
        var leading = false
        /// Items in the batch led last: more than one means callers are coming in bursts.
        var lastBatchCount = 0
    }

    private let state = Mutex(State())
    private let followUps = InTurn()
    let maxBatch: Int

    init(maxBatch: Int) {
        precondition(maxBatch > 0)
        self.maxBatch = maxBatch
    }

    /// Submissions waiting for a turn (to lead, or to be taken into a batch).
    var queuedCount: Int { state.withLock { $0.queue.count } }

    /// Commits `item`, alone or with others submitted at the same time, and returns its result.
    func submit(_ item: Item, commit: Commit) async throws -> Output {
        // An idle queue after a lone send is led at once, without suspending: one send at a time pays
        // no extra hop. After a batch of several, the first caller of the next burst (an application
        // posting several messages at once) yields once first, so the siblings already started queue
        // behind it: leading at once, it committed alone and they after it, two transactions and two
        // pushes for one burst (in the 3-node bench, one commit of a single message for every burst of 64).
        let idle = state.withLock { state -> (leads: Bool, afterBatch: Bool) in
            guard !state.leading else { return (false, false) }
            state.leading = true
            return (true, state.lastBatchCount > 1)
        }
        if idle.leads {
            if idle.afterBatch { await Task.yield() }
            return try await lead(with: item, commit: commit).get()
        }
        let turn = await withCheckedContinuation { (continuation: CheckedContinuation<Turn, Never>) in
            let leadNow = state.withLock { state in
                guard state.leading else {
                    state.leading = true
                    return true
                }
                state.queue.append(Waiter(item: item, continuation: continuation))
                return false
            }
            if leadNow { continuation.resume(returning: .lead) }
        }
        switch turn {
        case let .done(result): return try result.get()
        case .lead: return try await lead(with: item, commit: commit).get()
        }
    }

    private func lead(with item: Item, commit: Commit) async -> Result<Output, any Error> {
        let followers = state.withLock { state in
            let taken = Array(state.queue.prefix(maxBatch - 1))
            state.queue.removeFirst(taken.count)
            state.lastBatchCount = taken.count + 1
            return taken
        }
        let committed = await commit([item] + followers.map(\.item))
        let results = committed.results
        // A batch that failed only because its leader was cancelled is not the followers' failure:
        // they go back to the front of the queue, in order, and the first of them leads next.
        let abandoned = Task.isCancelled && results.allSatisfy { if case .failure = $0 { true } else { false } }
        // The follow-up's place is taken before the lead passes on, so the next batch follows after.
        let turn = followUps.take()
        let next = state.withLock { state -> Waiter? in
            if abandoned { state.queue.insert(contentsOf: followers, at: 0) }
            guard !state.queue.isEmpty else {
                state.leading = false
                return nil
            }
            return state.queue.removeFirst()
        }
        next?.continuation.resume(returning: .lead)
        if !abandoned {
            for (index, follower) in followers.enumerated() {
                follower.continuation.resume(returning: .done(Self.result(results, at: index + 1)))
            }
        }
        await followUps.wait(for: turn)
        await committed.followUp()
        followUps.finish(turn)
        return Self.result(results, at: 0)
    }

    private static func result(_ results: [Result<Output, any Error>], at index: Int) -> Result<Output, any Error> {
        index < results.count ? results[index] : .failure(GroupCommitError.noResult)
    }
}

/// Turns taken in order, each run only after the one before it finished: a ticket queue.
final class InTurn: Sendable {
    private struct State {
        var next: UInt64 = 0
        var serving: UInt64 = 0
        var waiting: [UInt64: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    /// The next turn.
    func take() -> UInt64 {
        state.withLock { state in
            defer { state.next += 1 }
            return state.next
        }
    }

    /// Returns once every turn before `turn` has finished.
    func wait(for turn: UInt64) async {
        if state.withLock({ $0.serving == turn }) { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state in
                guard state.serving != turn else { return true }
                state.waiting[turn] = continuation
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Ends `turn` (the one being served) and lets the next one run.
    func finish(_ turn: UInt64) {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            precondition(state.serving == turn, "turn \(turn) finished while serving \(state.serving)")
            state.serving += 1
            return state.waiting.removeValue(forKey: state.serving)
        }
        next?.resume()
    }
}

/// A commit returned fewer results than items: a programming error, reported rather than trapped.
struct GroupCommitError: Error, CustomStringConvertible {
    static let noResult = GroupCommitError()
    var description: String { "the send batch returned no result for this message" }
}
