import ParleyCore
import ParleyCrypto
import Synchronization

/// The node's file transfers (§13e): the fetches under way, the hash trees of files it serves, and each
/// member's budget of chunks served. Plain state behind one lock; the node does the I/O.
final class FileTransfers: Sendable {
    struct Fetch: Sendable {
        let id: MessageID
        let chat: ChatID
        let manifest: FileManifest
        var plan: ChunkFetch
        let data: FileDescriptor
        let have: FileDescriptor
        /// The chat's keys as last read: a chunk of an epoch not among them reads them again.
        var keys: [EpochKey]
        /// When members that lacked the file were last asked again (one may have fetched it since).
        var askedAllAt: Duration
        let startedAt: Duration
        let heldAtStart: Int
    }

    /// What checking a chunk reads of its fetch: not the plan, which the receive path changes meanwhile
    /// (a copy of it alive then would make every change copy it).
    struct Target: Sendable {
        let chat: ChatID
        let manifest: FileManifest
        let data: FileDescriptor
        let have: FileDescriptor
        let keys: [EpochKey]
    }

    struct State: Sendable {
        var fetches: [MessageID: Fetch] = [:]
        /// Fetches being set up (their files opened, their row written): not started twice.
        var starting: Set<MessageID> = []
        /// Trees of files served lately, newest last: a tree is built from the file once, not per chunk.
        var trees: [(id: MessageID, tree: FileTree)] = []
        var budgets: [PeerID: RateLimiter.Bucket] = [:]
        /// Chunks refused (a bad seal or hash), by the member that sent them.
        var refusedChunks: [PeerID: Int] = [:]
        var chunksServed = 0
        var chunksFetched = 0
    }

    static let keptTrees = 16
    static let maxBudgets = 4_096
    let state = Mutex(State())
    /// Wakes the fetch loop when a fetch starts: with none under way it sleeps on this, not on a timer.
    let wakes: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    init() { (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1)) }

    func started() { wake.yield() }

    func target(of id: MessageID) -> Target? {
        state.withLock { state in
            state.fetches[id].map {
                Target(chat: $0.chat, manifest: $0.manifest, data: $0.data, have: $0.have, keys: $0.keys)
            }
        }
    }

    func tree(of id: MessageID) -> FileTree? { state.withLock { $0.trees.first { $0.id == id }?.tree } }

    func keep(_ tree: FileTree, of id: MessageID) {
        state.withLock { state in
            state.trees.removeAll { $0.id == id }
            state.trees.append((id, tree))
            if state.trees.count > Self.keptTrees { state.trees.removeFirst() }
        }
    }

    /// Takes `count` chunks from `peer`'s budget; false (nothing taken) when it has not that many left.
    func admit(_ count: Int, from peer: PeerID, limit: RateLimiter.Limit, now: Duration) -> Int {
        state.withLock { state in
            if state.budgets[peer] == nil, state.budgets.count >= Self.maxBudgets { state.budgets.removeAll() }
            var bucket = state.budgets[peer] ?? RateLimiter.Bucket(limit: limit, now: now)
            var admitted = 0
            while admitted < count, bucket.take(limit: limit, now: now) { admitted += 1 }
            state.budgets[peer] = bucket
            state.chunksServed += admitted
            return admitted
        }
    }
}
