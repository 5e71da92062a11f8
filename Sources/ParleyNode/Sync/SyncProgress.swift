import ParleyCore
import Synchronization

/// What this node knows of each (peer, chat)'s sync: the vector it last sent the peer in a
/// continuation, and when; the vector the peer last said it holds; and our requests it has not answered.
final class SyncProgress: Sendable {
    private struct Key: Hashable {
        let peer: PeerID
        let chat: ChatID
    }

    private struct Entry {
        /// The last continuation's vector, and when it went.
        var sent: (vector: [PeerID: AuthorHoldings], at: Duration)?
        /// The peer's vector in its last request, or in its last `nothingMissing` answer.
        var received: [PeerID: AuthorHoldings]?
        /// Our requests to the peer that no `syncEnd` answered yet.
        var outstanding: Outstanding?
    }

    /// A `syncEnd` does not say which request it answers: an answer is matched to a request only
    /// while one alone is on its way. A lost request leaves the next one ambiguous, and its answer
    /// is then not used (one inference lost, never a wrong one).
    private enum Outstanding {
        case one([PeerID: AuthorHoldings])
        case ambiguous
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

    /// Keeps the vector a member sent in a sync request; says whether one was known already (the
    /// peer asked before in this session, or answered ours with `nothingMissing`).
    @discardableResult
    func received(_ vector: [PeerID: AuthorHoldings], from peer: PeerID, chat: ChatID) -> Bool {
        update(peer, chat) { entry in
            defer { entry.received = vector }
            return entry.received != nil
        }
    }

    /// Keeps the vector of a request on its way to `peer`.
    func asked(_ vector: [PeerID: AuthorHoldings], peer: PeerID, chat: ChatID) {
        update(peer, chat) { entry in entry.outstanding = entry.outstanding == nil ? .one(vector) : .ambiguous }
    }

    /// A `syncEnd` from `peer`: it answers our requests in flight. `nothingMissing` says the peer held
    /// exactly the vector of the request it answers, so when that request is known, the peer is
    /// recorded as holding it, as if it had sent it in a request of its own. (Without this, of two
    /// converged members only the one asked last stopped asking: the other kept asking it at every
    /// turn of the rounds.) Only an existing entry changes: an answer to nothing we asked is ignored.
    func answered(_ end: SyncEnd, by peer: PeerID, chat: ChatID) {
        entries.withLock { all in
            let key = Key(peer: peer, chat: chat)
            guard var entry = all[key] else { return }
            if end == .nothingMissing, case let .one(vector) = entry.outstanding { entry.received = vector }
            entry.outstanding = nil
            all[key] = entry
        }
    }

    /// Whether `peer` last told us it holds exactly `vector` of `chat` (in a request, or in a
    /// `nothingMissing` answer to ours). Then neither lacks anything
    /// the other holds, and the periodic round skips asking it: an idle chat costs no sync traffic.
    /// Whoever stores something new no longer matches and asks again, and the one who lacks it asks
    /// in turn once the other's request shows more.
    func holds(_ vector: [PeerID: AuthorHoldings], peer: PeerID, chat: ChatID) -> Bool {
        entries.withLock { $0[Key(peer: peer, chat: chat)]?.received == vector }
    }

    /// Forgets what a peer told us (a new session: it may have restarted with less).
    func forgetReceived(from peer: PeerID) { forgetReceived { $0.peer == peer } }

    /// Forgets what every peer told us of one chat: the next periodic round asks each of them again
    /// (a fork proof was kept, which the vectors alone do not show).
    func forgetReceived(chat: ChatID) { forgetReceived { $0.chat == chat } }

    private func forgetReceived(where matches: (Key) -> Bool) {
        entries.withLock { all in
            for key in all.keys where matches(key) {
                all[key]?.received = nil
                all[key]?.outstanding = nil
            }
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
