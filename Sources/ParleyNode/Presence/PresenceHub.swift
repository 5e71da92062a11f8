import ParleyCore
import ParleyCrypto
import Synchronization

/// The node's one holder of presence and typing state, and of the streams that follow typing
/// changes. A `Mutex` rather than an actor: every operation is a short synchronous update, and
/// streams are fed after the lock is released.
final class PresenceHub: Sendable {
    private struct State {
        var presence: PresenceTable
        var typing: TypingTable
        var watchers: [UInt64: (chat: ChatID, continuation: AsyncStream<[PeerID]>.Continuation)] = [:]
        var nextWatcher: UInt64 = 0
        /// Set by a graceful shutdown: no more heartbeats after the `leaving` one.
        var leaving = false
    }

    private let state: Mutex<State>

    init(typingExpiry: Duration, trafficTimeout: Duration) {
        state = Mutex(
            State(presence: PresenceTable(trafficTimeout: trafficTimeout), typing: TypingTable(expiry: typingExpiry)))
    }

    // MARK: Presence

    @discardableResult
    func record(_ beat: PresenceBeat, via relayer: PeerID? = nil, now: Duration) -> Bool {
        state.withLock { $0.presence.record(beat, via: relayer, now: now) }
    }
    /// Records traffic from each of `heard` (one lock for a batch); returns the peers not tracked,
    /// whose traffic was not kept.
    func recordHeard(_ heard: [(peer: PeerID, wallMillis: Int64, via: PeerID?, at: Duration)]) -> Set<PeerID> {
        state.withLock { state in
            var untracked: Set<PeerID> = []
            for traffic in heard
            where !state.presence.recordHeard(
                traffic.peer, wallMillis: traffic.wallMillis, via: traffic.via, at: traffic.at)
            {
                if !state.presence.tracked.contains(traffic.peer) { untracked.insert(traffic.peer) }
            }
            return untracked
        }
    }
    func status(of peer: PeerID, now: Duration) -> PresenceTable.Status {
        state.withLock { $0.presence.status(of: peer, now: now) }
    }
    func statusAndRelayer(of peer: PeerID, now: Duration) -> (status: PresenceTable.Status, via: PeerID?) {
        state.withLock { $0.presence.statusAndRelayer(of: peer, now: now) }
    }
    func track(_ peers: Set<PeerID>) { state.withLock { $0.presence.track(peers) } }
    func isTracked(_ peer: PeerID) -> Bool { state.withLock { $0.presence.tracked.contains(peer) } }

    /// Marks the node as leaving; returns false if it already was.
    func leave() -> Bool {
        state.withLock { state in
            defer { state.leaving = true }
            return !state.leaving
        }
    }

    var isLeaving: Bool { state.withLock { $0.leaving } }

    // MARK: Typing

    var holdsTypingIndicators: Bool { state.withLock { !$0.typing.isEmpty } }

    func typing(in chat: ChatID, now: Duration) -> [PeerID] { state.withLock { $0.typing.typing(in: chat, now: now) } }

    func recordTyping(_ peer: PeerID, chat: ChatID, active: Bool, now: Duration) {
        let updates = state.withLock { state -> [(AsyncStream<[PeerID]>.Continuation, [PeerID])] in
            guard state.typing.record(peer, chat: chat, active: active, now: now) else { return [] }
            return Self.updates(for: [chat: state.typing.typing(in: chat, now: now)], state)
        }
        for (continuation, peers) in updates { continuation.yield(peers) }
    }

    func expireTyping(now: Duration) {
        let updates = state.withLock { state in Self.updates(for: state.typing.expire(now: now), state) }
        for (continuation, peers) in updates { continuation.yield(peers) }
    }

    /// The chat's typing peers now, then after each change, until the consumer stops iterating.
    func typingUpdates(chat: ChatID, now: Duration) -> AsyncStream<[PeerID]> {
        let (stream, continuation) = AsyncStream<[PeerID]>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { state in
            state.nextWatcher += 1
            state.watchers[state.nextWatcher] = (chat, continuation)
            continuation.yield(state.typing.typing(in: chat, now: now))
            return state.nextWatcher
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.watchers.removeValue(forKey: id) }
        }
        return stream
    }

    private static func updates(for changed: [ChatID: [PeerID]], _ state: State) -> [(
        AsyncStream<[PeerID]>.Continuation, [PeerID]
    )] {
        guard !changed.isEmpty else { return [] }
        return state.watchers.values.compactMap { watcher in changed[watcher.chat].map { (watcher.continuation, $0) } }
    }
}
