internal import Synchronization
import ParleyCore

/// What sync rounds read of each chat (its version vector, its authors' highest sequences), kept
/// until the next committed write: every member asks every 2 s, and an idle node must answer from
/// memory. A value is kept under the write count read before it was read, so a write that commits
/// meanwhile makes it a miss, never stale.
final class SyncReadCache: Sendable {
    private struct State {
        var writes: UInt64 = 0
        var vectors: [ChatID: (writes: UInt64, value: [PeerID: AuthorHoldings])] = [:]
        var highest: [ChatID: (writes: UInt64, value: [PeerID: UInt64])] = [:]
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

    func vector(_ chat: ChatID, orRead read: () throws(StoreError) -> [PeerID: AuthorHoldings]) throws(StoreError)
        -> [PeerID: AuthorHoldings]
    {
        try cached(\.vectors, chat, orRead: read)
    }

    func highest(_ chat: ChatID, orRead read: () throws(StoreError) -> [PeerID: UInt64]) throws(StoreError) -> [PeerID:
        UInt64]
    {
        try cached(\.highest, chat, orRead: read)
    }

    private func cached<Value: Sendable>(
        _ table: WritableKeyPath<State, [ChatID: (writes: UInt64, value: Value)]>, _ chat: ChatID,
        orRead read: () throws(StoreError) -> Value
    ) throws(StoreError) -> Value {
        let (hit, writes) = state.withLock { ($0[keyPath: table][chat]?.value, $0.writes) }
        if let hit { return hit }
        let fresh = try read()
        state.withLock { state in if state.writes == writes { state[keyPath: table][chat] = (writes, fresh) } }
        return fresh
    }
}
