import ParleyCore
import Synchronization

/// The vector last sent in a sync continuation to each (peer, chat), and when.
final class SyncProgress: Sendable {
    private struct Key: Hashable {
        let peer: PeerID
        let chat: ChatID
    }

    private static let capacity = 4_096
    private struct Sent {
        let vector: [PeerID: AuthorHoldings]
        let at: Duration
    }

    private let lastSent = Mutex<[Key: Sent]>([:])

    /// Records `vector` and says whether it differs from the one sent last time.
    func advance(peer: PeerID, chat: ChatID, to vector: [PeerID: AuthorHoldings], now: Duration) -> Bool {
        lastSent.withLock { all in
            let key = Key(peer: peer, chat: chat)
            guard all[key]?.vector != vector else { return false }
            if all.count >= Self.capacity { all.removeAll(keepingCapacity: true) }
            all[key] = Sent(vector: vector, at: now)
            return true
        }
    }

    /// Whether a continuation went to this peer for this chat within `interval`: the periodic
    /// round then stays out of the way, so replies do not pile up and repeat during a catch-up.
    func isCatchingUp(peer: PeerID, chat: ChatID, now: Duration, within interval: Duration) -> Bool {
        lastSent.withLock { $0[Key(peer: peer, chat: chat)].map { now - $0.at < interval } ?? false }
    }
}
