internal import Synchronization
import ParleyCore

/// What sync rounds read of each chat (its version vector, its authors' highest sequences), kept
/// until the next committed write: every member asks every 2 s, and an idle node must answer from
/// memory. A value is kept under the write count read before it was read, so a write that commits
/// meanwhile makes it a miss, never stale.
final class SyncReadCache: Sendable {
    private struct State {
        var writes: UInt64 = 0
        var vectors: [ChatID: (writes: UInt64, vector: [PeerID: AuthorHoldings])] = [:]
        var highest: [ChatID: (writes: UInt64, sequences: [PeerID: UInt64])] = [:]
    }

    private let state = Mutex(State())

    /// Called after every write transaction ends, committed or not.
    func writeEnded() {
        state.withLock { state in
            state.writes &+= 1
            state.vectors.removeAll(keepingCapacity: true)
            state.highest.removeAll(keepingCapacity: true)
        }
    }

    func vector(_ chat: ChatID, orRead read: () throws(StoreError) -> [PeerID: AuthorHoldings]) throws(StoreError) -> [PeerID: AuthorHoldings] {
        let (cached, writes) = state.withLock { ($0.vectors[chat]?.vector, $0.writes) }
        if let cached { return cached }
        let fresh = try read()
        state.withLock { state in if state.writes == writes { state.vectors[chat] = (writes, fresh) } }
        return fresh
    }

    func highest(_ chat: ChatID, orRead read: () throws(StoreError) -> [PeerID: UInt64]) throws(StoreError) -> [PeerID: UInt64] {
        let (cached, writes) = state.withLock { ($0.highest[chat]?.sequences, $0.writes) }
        if let cached { return cached }
        let fresh = try read()
        state.withLock { state in if state.writes == writes { state.highest[chat] = (writes, fresh) } }
        return fresh
    }
}
