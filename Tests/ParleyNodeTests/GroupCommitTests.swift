import Dispatch
@testable import ParleyNode
import ParleyTestKit
import Synchronization
import Testing

/// Concurrent sends share one commit per batch, and each caller still gets its own result.
///
/// Each step waits for a state of the queue (callers queued, a batch committed), never for a time, so
/// the batches are the same however loaded the machine is.
struct GroupCommitTests {
    struct Refused: Error, Equatable { let item: Int }

    /// Waits until `condition` holds, checking between yields and then between short sleeps that leave
    /// the cores to the tasks it waits for (as `NetworkPump` does); false if it still does not after
    /// 200,000 checks. What it waits for is a task ready to run: only a broken queue runs out of checks.
    static func waiting(until condition: () -> Bool) async -> Bool {
        for check in 0..<200_000 {
            if condition() { return true }
            if check < 100 { await Task.yield() } else { try? await Task.sleep(for: .microseconds(50)) }
        }
        return condition()
    }

    /// Records every batch it commits; odd items fail, to show failures stay with their item. The first
    /// batch lasts until `queued` more callers wait, as a store transaction holds the queue up.
    final class Recorder: Sendable {
        let batches = Mutex<[[Int]]>([])
        let queued: Int
        let queue: GroupCommit<Int, Int>

        init(holdingUntil queued: Int, in queue: GroupCommit<Int, Int>) {
            self.queued = queued
            self.queue = queue
        }

        func commit(_ items: [Int]) async -> GroupCommit<Int, Int>.Committed {
            let first = batches.withLock { batches in
                batches.append(items)
                return batches.count == 1
            }
            if first { _ = await GroupCommitTests.waiting { queue.queuedCount >= queued } }
            return .init(results: items.map { $0 % 2 == 0 ? .success($0 * 10) : .failure(Refused(item: $0)) })
        }
    }

    /// Lines appended from several tasks.
    final class Log: Sendable {
        let lines = Mutex<[String]>([])
        func append(_ line: String) { lines.withLock { $0.append(line) } }
        var count: Int { lines.withLock { $0.count } }
        var all: [String] { lines.withLock { $0 } }
    }

    @Test func concurrentSubmissionsShareBatchesAndEachGetsItsOwnResult() async throws {
        // Given a commit queue with batches of at most 16, whose first batch (item 0's) lasts until 199 more
        // callers wait
        let queue = GroupCommit<Int, Int>(maxBatch: 16)
        let recorder = Recorder(holdingUntil: 199, in: queue)
        // When the 199 others submit at once while it commits
        let results = await withTaskGroup(of: (Int, Result<Int, any Error>).self) { group in
            func submit(_ item: Int) {
                group.addTask { (item, await Result { try await queue.submit(item) { await recorder.commit($0) } }) }
            }
            submit(0)
            _ = await Self.waiting { recorder.batches.withLock { !$0.isEmpty } }
            for item in 1..<200 { submit(item) }
            return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        // Then every item was committed exactly once, and got its own outcome: 0 alone, and the 199 queued
        // behind it in full batches of 16 (each leader with the 15 oldest waiters), then the 7 left
        let batches = recorder.batches.withLock { $0 }
        #expect(batches.flatMap { $0 }.sorted() == Array(0..<200))
        #expect(batches.map(\.count) == [1] + Array(repeating: 16, count: 12) + [7])
        for item in 0..<200 {
            if item % 2 == 0 {
                #expect(try results[item]?.get() == item * 10)
            } else {
                #expect(throws: Refused(item: item)) { try results[item]?.get() }
            }
        }
    }

    @Test func followersInACancelledLeadersBatchAreCommittedUnderTheNextLeader() async throws {
        // Given a first batch that ends only once 0, 1 and 2 are queued, and item 0 whose commit waits until cancelled
        let queue = GroupCommit<Int, Int>(maxBatch: 64)
        let committed = Mutex<[[Int]]>([])
        let commit: GroupCommit<Int, Int>.Commit = { items in
            committed.withLock { $0.append(items) }
            if items.contains(100) { _ = await Self.waiting { queue.queuedCount >= 3 } }
            if items.contains(0) {
                // A clock no one moves: the sleep ends only when the task is cancelled.
                do { try await ManualClock().sleep(for: .seconds(30)) } catch {
                    return .init(results: items.map { _ in .failure(CancellationError()) })
                }
            }
            return .init(results: items.map { .success($0) })
        }
        async let first = Result { try await queue.submit(100, commit: commit) }
        try #require(await Self.waiting { !committed.withLock { $0.isEmpty } })
        // When 0, 1 and 2 queue behind it, so 0 leads a batch holding 1 and 2, and 0 is cancelled
        let leader = Task { try await queue.submit(0, commit: commit) }
        try #require(await Self.waiting { queue.queuedCount >= 1 })
        async let one = Result { try await queue.submit(1, commit: commit) }
        async let two = Result { try await queue.submit(2, commit: commit) }
        try #require(await Self.waiting { committed.withLock { $0.contains { $0.contains(0) } } })
        leader.cancel()
        // Then 0 fails, and 1 and 2 are committed again, together, under the next leader
        await #expect(throws: CancellationError.self) { try await leader.value }
        #expect(try await first.get() == 100)
        #expect(try await one.get() == 1)
        #expect(try await two.get() == 2)
        #expect(committed.withLock { $0 }.map(Set.init) == [[100], [0, 1, 2], [1, 2]])
    }

    @Test func theNextBatchCommitsWhileTheOneBeforeFollowsUpAndFollowUpsKeepBatchOrder() async throws {
        // Given batches whose follow-up (the push) holds until the next batch has committed
        let queue = GroupCommit<Int, Int>(maxBatch: 4)
        let log = Log()
        let commit: GroupCommit<Int, Int>.Commit = { items in
            let batch = items.min()!
            log.append("commit \(batch)")
            return .init(results: items.map { .success($0) }) {
                // The first follow-up waits for a later commit: with one batch at a time it never comes.
                if batch == 0 { _ = await Self.waiting { log.all.contains("commit 4") } }
                log.append("follow-up \(batch)")
            }
        }
        // When 0 commits alone, and 4…11 are submitted while it follows up
        async let zero = queue.submit(0, commit: commit)
        try #require(await Self.waiting { log.count > 0 })
        let rest = Task {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for item in 4..<12 { group.addTask { try await queue.submit(item, commit: commit) } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
        }
        // Then 4's batch committed while 0 was following up, each caller got its own result,
        // and the follow-ups ran in the order the batches committed
        #expect(try await zero == 0)
        #expect(try await rest.value.sorted() == Array(4..<12))
        let entries = log.all
        #expect(entries.firstIndex(of: "commit 4")! < entries.firstIndex(of: "follow-up 0")!)
        let commits = entries.filter { $0.hasPrefix("commit") }.map { $0.dropFirst("commit ".count) }
        let followUps = entries.filter { $0.hasPrefix("follow-up") }.map { $0.dropFirst("follow-up ".count) }
        #expect(followUps == commits)
    }

    @Test func followersHaveTheirResultsBeforeThePushAndTheLeaderAfterIt() async throws {
        // Given a first batch that ends only once 0, 1 and 2 are queued, so 0 leads a batch of all three
        let queue = GroupCommit<Int, Int>(maxBatch: 64)
        let log = Log()
        let started = Log()
        let commit: GroupCommit<Int, Int>.Commit = { items in
            started.append("commit \(items.min()!)")
            if items.contains(100) { _ = await Self.waiting { queue.queuedCount >= 3 } }
            return .init(results: items.map { .success($0) }) {
                // The follow-up holds until both followers have their results, after the first batch's own
                // follow-up (unless they never come)
                if items.contains(0) { _ = await Self.waiting { log.count >= 3 } }
                log.append("follow-up \(items.min()!)")
            }
        }
        async let first = queue.submit(100, commit: commit)
        try #require(await Self.waiting { started.count > 0 })
        let submit: @Sendable (Int) -> Task<Void, any Error> = { item in
            Task {
                let result = try await queue.submit(item, commit: commit)
                log.append("result \(result)")
            }
        }
        let leader = submit(0)
        try #require(await Self.waiting { queue.queuedCount >= 1 })
        let followers = [submit(1), submit(2)]
        // When the batch of 0, 1 and 2 commits
        #expect(try await first == 100)
        for caller in [leader] + followers { try await caller.value }
        // Then 1 and 2 had their results before its follow-up (the push) ran, and 0, which led it, after
        let entries = log.all
        let push = try #require(entries.firstIndex(of: "follow-up 0"))
        #expect(Set(entries[..<push]) == ["result 1", "result 2", "follow-up 100"])
        #expect(try #require(entries.firstIndex(of: "result 0")) > push)
    }

    @Test func afterABatchOfSeveralTheFirstOfTheNextBurstCommitsWithItsSiblings() async throws {
        // Given a batch of three behind a first one that holds until they queue
        let queue = GroupCommit<Int, Int>(maxBatch: 64)
        let committed = Mutex<[[Int]]>([])
        let commit: GroupCommit<Int, Int>.Commit = { items in
            committed.withLock { $0.append(items) }
            if items.contains(100) { _ = await Self.waiting { queue.queuedCount >= 3 } }
            return .init(results: items.map { .success($0) })
        }
        async let first = queue.submit(100, commit: commit)
        try #require(await Self.waiting { !committed.withLock { $0.isEmpty } })
        async let queued = withThrowingTaskGroup(of: Int.self) { group in
            for item in 1...3 { group.addTask { try await queue.submit(item, commit: commit) } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(try await first == 100)
        #expect(try await queued.sorted() == [1, 2, 3])
        #expect(committed.withLock { $0 }.map(\.count) == [1, 3])

        // When a burst of 16 callers finds the queue idle, all of them queued on one executor before any
        // runs (it runs one job after another, so they interleave only where they suspend)
        let executor = OneQueueExecutor()
        let burst = try await withTaskExecutorPreference(executor) {
            try await withThrowingTaskGroup(of: Int.self) { group in
                executor.hold()
                for item in 10..<26 { group.addTask { try await queue.submit(item, commit: commit) } }
                executor.release()
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
        }

        // Then every caller got its result, and the burst was one commit: its first caller yielded
        // once, and the other 15 queued behind it (leading at once, it would have committed alone)
        #expect(burst.sorted() == Array(10..<26))
        #expect(committed.withLock { $0 }.dropFirst(2).map(\.count) == [16])
    }

    /// Runs the jobs it is given one after another on one dispatch queue, in the order given; between
    /// `hold` and `release` it only queues them (a job already running goes on).
    final class OneQueueExecutor: TaskExecutor {
        private let queue = DispatchQueue(label: "GroupCommitTests.one-queue")

        func hold() { queue.suspend() }
        func release() { queue.resume() }

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            let executor = asUnownedTaskExecutor()
            queue.async { job.runSynchronously(on: executor) }
        }
    }
}
