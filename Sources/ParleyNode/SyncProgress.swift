import ParleyCore
import Synchronization

/// What this node knows of each (peer, chat)'s sync: the vector it last sent the peer in a
/// continuation, and when, and the vector the peer last sent it in a request.
final class SyncProgress: Sendable {
    private struct Key: Hashable {
        let peer: PeerID
        let chat: ChatID
    }

    private struct Entry {
        /// The last continuation's vector, and when it went.
        var sent: (vector: [PeerID: AuthorHoldings], at: Duration)?
        /// The peer's vector in its last request, or ours when it last answered `nothingMissing`.
        var received: [PeerID: AuthorHoldings]?
        /// Our vector in the last request we sent the peer.
        var asked: [PeerID: AuthorHoldings]?
    }

    private static let capacity = 4_096
    private let entries = Mutex<[Key: Entry]>([:])

    /// Records `vector` and says whether it differs from the one sent last time.
    func advance(peer: PeerID, chat: ChatID, to vector: [PeerID: AuthorHoldings], now: Duration) -> Bool {
        update(peer, chat) { entry in
            guard entry.sent?.vector != vector else { return false }
            entry.sent = (vector, now)
            return true
        }
    }

    /// Whether a continuation went to this peer for this chat within `interval`: the periodic
    /// round then stays out of the way, so replies do not pile up and repeat during a catch-up.
    func isCatchingUp(peer: PeerID, chat: ChatID, now: Duration, within interval: Duration) -> Bool {
        entries.withLock { $0[Key(peer: peer, chat: chat)]?.sent.map { now - $0.at < interval } ?? false }
    }

    /// Keeps the vector a member sent in a sync request.
    func received(_ vector: [PeerID: AuthorHoldings], from peer: PeerID, chat: ChatID) {
        update(peer, chat) { $0.received = vector }
    }

    /// Keeps the vector of a request on its way to `peer`.
    func asked(_ vector: [PeerID: AuthorHoldings], peer: PeerID, chat: ChatID) {
        update(peer, chat) { $0.asked = vector }
    }

    /// `peer` holds nothing our last request's vector lacks: until our vector moves past it, asking
    /// again would bring nothing. Should the peer lack something of ours, it asks us, as it holds our
    /// vector from that request. (Without this, of two converged members only the one asked last
    /// stopped asking: the other kept asking it at every turn of the rounds.)
    func answeredNothingMissing(by peer: PeerID, chat: ChatID) {
        update(peer, chat) { entry in
            if let asked = entry.asked { entry.received = asked }
        }
    }

    /// Whether `peer` last told us it holds exactly `vector` of `chat`. Then neither lacks anything
    /// the other holds, and the periodic round skips asking it: an idle chat costs no sync traffic.
    /// Whoever stores something new no longer matches and asks again, and the one who lacks it asks
    /// in turn once the other's request shows more.
    func holds(_ vector: [PeerID: AuthorHoldings], peer: PeerID, chat: ChatID) -> Bool {
        entries.withLock { $0[Key(peer: peer, chat: chat)]?.received == vector }
    }

    /// Forgets what a peer told us (a new session: it may have restarted with less).
    func forgetReceived(from peer: PeerID) {
        entries.withLock { all in
            for key in all.keys where key.peer == peer { all[key]?.received = nil }
        }
    }

    private func update<T>(_ peer: PeerID, _ chat: ChatID, _ change: (inout Entry) -> T) -> T {
        entries.withLock { all in
            let key = Key(peer: peer, chat: chat)
            if all.count >= Self.capacity, all[key] == nil { all.removeAll(keepingCapacity: true) }
            var entry = all[key] ?? Entry()
            defer { all[key] = entry }
            return change(&entry)
        }
    }
}
