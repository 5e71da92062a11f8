import Logging
import ParleyCore
import ParleyStore

/// The search index is kept off the insert transaction (the throughput bench's bottleneck): this
/// loop indexes what was stored once the store has been quiet for a tick, and a search catches up
/// with whatever is left before it reads.
extension Node {
    /// How long a busy store may keep the index waiting before it is indexed anyway.
    static let searchIndexPatience: Duration = .seconds(10)

    /// Runs until cancelled, every `configuration.searchIndexTick` (not at all without one); a failure
    /// is logged and retried at the next tick.
    func indexForSearchWhenQuiet() async throws {
        guard let tick = configuration.searchIndexTick else { return }
        var seenRow: Int64 = -1
        var indexedRow: Int64 = 0
        var waitingSince: Duration?
        while !Task.isCancelled {
            try await clock.sleep(for: tick)
            do {
                let newest = try store.newestMessageRow()
                defer { seenRow = newest }
                guard newest != indexedRow else { continue }
                let now = clock.now
                let started = waitingSince ?? now
                waitingSince = started
                if newest != seenRow, now - started < Self.searchIndexPatience { continue }
                while try await store.indexForSearch() == MessageStore.searchIndexBatch {
                    // New messages: the writer is busy again, so wait for the next quiet tick.
                    if try store.newestMessageRow() != newest, clock.now - started < Self.searchIndexPatience {
                        break
                    }
                }
                if try !store.searchIndexIsBehind() {
                    indexedRow = newest
                    waitingSince = nil
                }
            } catch {
                // A node stopping cancels a write in flight: that is the end of the loop, not a failure.
                if Task.isCancelled { return }
                logger.warning("indexing for search failed; retrying", metadata: ["error": "\(error)"])
            }
        }
    }
}
