import Synchronization

/// Runs concurrent submissions through one `commit` call per batch, as databases do group commit:
/// a send costs a store transaction and an engine hop, and callers sending at once share them.
///
/// No task is spawned. The first caller to find the queue idle leads: it commits its own item with
/// every item queued so far (up to `maxBatch`), hands each waiter its result, then passes the lead to
/// the oldest waiter still queued. So each caller does at most one batch of work, in FIFO order.
final class GroupCommit<Item: Sendable, Output: Sendable>: Sendable {
    typealias Commit = @Sendable ([Item]) async -> [Result<Output, any Error>]

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
    }

    private let state = Mutex(State())
    let maxBatch: Int

    init(maxBatch: Int) {
        precondition(maxBatch > 0)
        self.maxBatch = maxBatch
    }

    /// Submissions waiting for a turn (to lead, or to be taken into a batch).
    var queuedCount: Int { state.withLock { $0.queue.count } }

    /// Commits `item`, alone or with others submitted at the same time, and returns its result.
    func submit(_ item: Item, commit: Commit) async throws -> Output {
        // An idle queue is led at once, without suspending: a lone send pays no extra hop.
        if state.withLock({ state in state.leading ? false : { state.leading = true; return true }() }) {
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
            return taken
        }
        let results = await commit([item] + followers.map(\.item))
        // A batch that failed only because its leader was cancelled is not the followers' failure:
        // they go back to the front of the queue, in order, and the first of them leads next.
        let abandoned = Task.isCancelled && results.allSatisfy { if case .failure = $0 { true } else { false } }
        if !abandoned {
            for (index, follower) in followers.enumerated() {
                follower.continuation.resume(returning: .done(Self.result(results, at: index + 1)))
            }
        }
        let next = state.withLock { state -> Waiter? in
            if abandoned { state.queue.insert(contentsOf: followers, at: 0) }
            guard !state.queue.isEmpty else {
                state.leading = false
                return nil
            }
            return state.queue.removeFirst()
        }
        next?.continuation.resume(returning: .lead)
        return Self.result(results, at: 0)
    }

    private static func result(_ results: [Result<Output, any Error>], at index: Int) -> Result<Output, any Error> {
        index < results.count ? results[index] : .failure(GroupCommitError.noResult)
    }
}

/// A commit returned fewer results than items: a programming error, reported rather than trapped.
struct GroupCommitError: Error, CustomStringConvertible {
    static let noResult = GroupCommitError()
    var description: String { "the send batch returned no result for this message" }
}
