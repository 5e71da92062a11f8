import Logging
import ParleyCore
import ParleyCrypto
import ParleyStore

/// A batch decrypted, its frames sorted (`InboundPlan`) and its new messages checked: the CPU-bound half
/// of receiving, which may run while the batch before it is still being stored.
struct PreparedBatch: Sendable {
    let now: Duration
    /// The engine's side of the batch: sessions established, announces; its frames are sorted into `plan`.
    let opened: NodeEngine.Opened
    let plan: InboundPlan
    let messages: Node.CheckedMessages
}

/// The receive path, built for bursts: one engine hop to decrypt the whole batch, its frames sorted by
/// handler in one pass, signature checks spread over the cores, one store transaction for every message
/// in it, then one ack per peer. The node only carries out the batch's plan here; each handler takes
/// all of the batch's frames of its kind.
extension Node {
    /// Decrypts the batch, sorts its frames and verifies the signatures of the messages it carries that
    /// are not stored yet. Handshake answers go out at once: the engine already uses the sessions they complete.
    func openAndVerify(_ batch: [Datagram]) async -> PreparedBatch {
        let now = clock.now
        let opened = await engine.open(batch, now: now, wallMillis: clock.wallMillis)
        logger.trace(
            "batch",
            metadata: [
                "datagrams": "\(batch.count)", "frames": "\(opened.frames.reduce(0) { $0 + $1.frames.count })",
                "established": "\(opened.established.map(\.shortHex))",
            ])
        await transmit(opened.replies)
        let plan = InboundPlan(sorting: opened.frames)
        // Chunks touch no message: served, assembled and written before the batch's messages are checked.
        await receiveFileFrames(plan.fileFrames)
        return PreparedBatch(now: now, opened: opened, plan: plan, messages: await check(plan.messages))
    }

    /// Everything else: new sessions greeted, the plan's steps in arrival order (invites, sync, presence,
    /// chain tops), then introductions, typing, the checked messages stored in one transaction, read
    /// receipts, fork proofs and ballot envelopes, acks; the replies go out last.
    func storeAndReply(_ prepared: PreparedBatch) async throws {
        let (opened, plan) = (prepared.opened, prepared.plan)
        try await greet(Set(opened.established + opened.announced))
        await recordHeard(direct: plan.senders.union(opened.established), relayed: [])

        var replies: [PeerID: [Frame]] = [:]
        for (peer, step) in plan.steps {
            switch step {
            case let .invite(bytes): replies[peer, default: []] += try await receiveInvite(bytes, from: peer)
            case let .syncRequest(chat, vector):
                replies[peer, default: []] += try syncReply(chat: chat, vector: vector, to: peer)
            // A `more` was answered and followed up before this batch was stored (`continueSyncs`).
            case let .syncEnded(chat, end): syncProgress.answered(end, by: peer, chat: chat)
            case let .needInvite(chat):
                if let invite = try invite(askedFor: chat, by: peer) { replies[peer, default: []].append(invite) }
            case let .presence(beat): try await receivePresence(beat, from: peer)
            case let .chainTops(chat, tops):
                replies[peer, default: []] += try answerChainTops(tops, chat: chat, from: peer)
            }
        }
        await introduce(plan.introductionsAsked)
        await meet(plan.introductions)
        await answerAnnounces(opened.answerable)
        try await store.recordAcceptances(plan.invitesAccepted)
        try await receiveTyping(plan.typing)
        for (peer, frames) in try await receiveMessages(prepared.messages) { replies[peer, default: []] += frames }
        for (peer, frames) in try await receiveReads(plan.reads) { replies[peer, default: []] += frames }
        // After the batch's messages: a proof may be about an author whose first message came with it.
        await receiveForkProofs(plan.forkProofs)
        // After the batch's messages are stored: an envelope may be for a poll the same batch brought.
        for envelope in plan.ballotRelays {
            await receiveBallotRelay(
                publisher: envelope.publisher, holdMillis: envelope.hold, sealed: envelope.sealed, from: envelope.peer)
        }
        try await receiveAcks(of: plan, now: prepared.now)
        await transmit(replies)
    }
}
