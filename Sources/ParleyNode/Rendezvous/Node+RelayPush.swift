import ParleyCore
import ParleyCrypto
import ParleyStore
import Synchronization

/// Relayed members get new messages at once (PROTOCOL.md §12a): a member that asked this node to
/// introduce it to an author has no session with that author, so what this node stores of that
/// author's goes on to it right away, reliably, instead of waiting for its next sync round. The
/// messages travel as their author signed them: a relay can delay or drop them (sync still brings
/// them) but not change them, and it sends them only to members of their chat.
extension Node {
    /// Pushes `stored` (others' messages new here, each with the peer that delivered it, in each
    /// author's order) to the members subscribed to its author through this node
    /// (`Rendezvous.beatSubscribers`). Only what the author's own node delivered goes on, and of each
    /// chat's run only up to its last head: a member
    /// acknowledges no chained message before its head, so a run cut off there would hold its push
    /// window (the author keeps runs within one, `maxChainedRun`; sync may bring longer ones, and a
    /// message released by its stored successor comes without one). What is left comes by sync.
    func relayOnward(_ stored: [(message: Message, from: PeerID)]) async {
        let now = clock.now
        // The common case, no member relayed through this node, costs one lock and no store read.
        guard !stored.isEmpty, rendezvous.withLock({ $0.mayRelay(now: now) }) else { return }
        var pending: [AuthorLane: [Message]] = [:]
        var headed: [Message] = []
        for (message, from) in stored where from == message.author {
            let lane = AuthorLane(of: message)
            pending[lane, default: []].append(message)
            if message.isHead { headed += pending.removeValue(forKey: lane) ?? [] }
        }
        guard !headed.isEmpty else { return }
        var subscribers: [PeerID: [PeerID]] = [:]
        var members: [ChatID: Set<PeerID>] = [:]
        var pushes: [(key: OutboundKey, frame: Frame)] = []
        var pushed: [MessageID] = []
        for message in headed {
            let author = message.author
            let asking =
                subscribers[author]
                ?? rendezvous.withLock { $0.beatSubscribers(of: author, now: now) }.sorted()
            subscribers[author] = asking
            guard !asking.isEmpty else { continue }
            if members[message.chat] == nil {
                members[message.chat] = Set((try? store.membership(of: message.chat))?.members ?? [])
            }
            let chatMembers = members[message.chat] ?? []
            // Never back to the author (who delivered it), nor to this node.
            let onward = asking.filter { $0 != author && $0 != me && chatMembers.contains($0) }
            guard !onward.isEmpty else { continue }
            let encoded = message.encoded
            pushes += onward.map { (.message(message.id, to: $0), .message(encoded)) }
            pushed.append(message.id)
        }
        guard !pushes.isEmpty else { return }
        // Their acks come back here like an author's: they only release the pushes, recording no delivery.
        relayed.withLock { relayed in for id in pushed { relayed.insert(id) } }
        relayPushes.add(pushes.count, ordering: .relaxed)
        await pushReliably(pushes)
    }
}
