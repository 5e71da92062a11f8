import ParleyCore
import ParleyCrypto
import ParleyStore
import Synchronization

/// Acks arriving: for messages, invites and read receipts this node pushes until acknowledged.
extension Node {
    /// A batch's acks, once its messages are stored: what they acknowledge is no longer pushed (one
    /// engine hop, which lets out what waited for room in the push windows), acknowledged read receipts
    /// are no longer kept to push after a restart, and deliveries of own messages are recorded.
    func receiveAcks(of plan: InboundPlan, now: Duration) async throws {
        if !plan.invitesAccepted.isEmpty || !plan.acked.isEmpty || !plan.readsAcked.isEmpty {
            var keys: [OutboundKey] = []
            keys.reserveCapacity(
                plan.invitesAccepted.count + plan.readsAcked.reduce(0) { $0 + $1.ids.count } + plan.acked.count)
            keys.append(contentsOf: plan.invitesAccepted.lazy.map { .invite($0.chat, to: $0.peer) })
            for acked in plan.readsAcked { keys.append(contentsOf: acked.ids.lazy.map { .read($0, to: acked.peer) }) }
            keys.append(contentsOf: plan.acked.lazy.map { .message($0.message, to: $0.peer) })
            await transmit(await engine.acknowledge(keys, now: now, wallMillis: clock.wallMillis))
        }
        try await store.readReceiptsAcknowledged(plan.readsAcked.map { ($0.peer, $0.ids) })
        try await recordAcks(plan.acked)
    }

    /// Every ack is recorded, not only awaited ones: a member that got a message by sync after the
    /// retransmits gave up still moves it to delivered. The store ignores acks for others' messages;
    /// those of others' messages this node relayed by sync lately do not even reach it (`relayed`).
    /// The `didSend` hook hears of each own message whose delivered count grew.
    func recordAcks(_ acked: [(message: MessageID, peer: PeerID)]) async throws {
        let acks = relayed.withLock { relayed in acked.filter { !relayed.contains($0.message) } }
        guard !acks.isEmpty else { return }
        let progress = try await store.recordDeliveries(acks, atMillis: clock.wallMillis)
        guard let didSend = configuration.sendHooks.didSend else { return }
        for (id, delivery) in progress where delivery.grew {
            await didSend(.delivered(id, to: delivery.deliveredTo, of: delivery.recipients))
        }
    }
}
