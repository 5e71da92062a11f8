import ParleyCore
import Synchronization

/// The vector last sent in a sync continuation to each (peer, chat).
final class SyncProgress: Sendable {
    private struct Key: Hashable {
        let peer: PeerID
        let chat: ChatID
    }

    private static let capacity = 4_096
    private let lastSent = Mutex<[Key: [PeerID: AuthorHoldings]]>([:])

    /// Records `vector` and says whether it differs from the one sent last time.
    func advance(peer: PeerID, chat: ChatID, to vector: [PeerID: AuthorHoldings]) -> Bool {
        lastSent.withLock { all in
            let key = Key(peer: peer, chat: chat)
            guard all[key] != vector else { return false }
            if all.count >= Self.capacity { all.removeAll(keepingCapacity: true) }
            all[key] = vector
            return true
        }
    }
}
