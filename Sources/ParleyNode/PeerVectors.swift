import ParleyCore
import Synchronization

/// The vector each member last sent us in a sync request, per chat. When a member's last vector equals
/// ours, neither lacks anything the other holds, so the periodic round skips asking it: an idle chat
/// costs no sync traffic. Whoever stores something new has a vector that no longer matches and asks
/// again, and the one who lacks it asks in turn once the other's request shows more.
final class PeerVectors: Sendable {
    private struct Key: Hashable {
        let peer: PeerID
        let chat: ChatID
    }

    private static let capacity = 4_096
    private let last = Mutex<[Key: [PeerID: AuthorHoldings]]>([:])

    func record(_ vector: [PeerID: AuthorHoldings], from peer: PeerID, chat: ChatID) {
        last.withLock { all in
            if all.count >= Self.capacity, all[Key(peer: peer, chat: chat)] == nil { all.removeAll(keepingCapacity: true) }
            all[Key(peer: peer, chat: chat)] = vector
        }
    }

    /// Whether `peer` last told us it holds exactly `vector` of `chat`.
    func holds(_ vector: [PeerID: AuthorHoldings], peer: PeerID, chat: ChatID) -> Bool {
        last.withLock { $0[Key(peer: peer, chat: chat)] == vector }
    }

    /// Forgets a peer (it restarted or went away): the next round asks it again.
    func forget(_ peer: PeerID) {
        last.withLock { all in all = all.filter { $0.key.peer != peer } }
    }
}
