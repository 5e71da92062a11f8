import Logging
import Synchronization
import ParleyCore
import ParleyStore

/// Forks (PROTOCOL.md §4.4): an author who signs two messages for one slot of its chain is found
/// out by the node that holds both, which makes a `ForkProof`, keeps it and tells every member. The
/// rules then count nothing of that author in the chat from the forked sequence on (`ChatForks`),
/// on every node that holds the proof, whichever branch it stored first.
extension Node {
    /// After a batch is stored: the forks it reveals, each proven from the batch and the store, kept,
    /// and pushed to the chat's members. `received` is every verified message of the batch (with the
    /// signed forms of covered heads), from which the branch that lost its slot is read.
    func proveForks(stored batch: [Message], outcomes: [InsertOutcome], received: [Message]) async {
        do {
            var lowest: [AuthorLane: ForkProof] = [:]
            for conflict in try forkConflicts(stored: batch, outcomes: outcomes) {
                let lane = AuthorLane(of: conflict.lower)
                if let found = lowest[lane], found.sequence <= conflict.lower.sequence { continue }
                let pool =
                    received.filter { AuthorLane(of: $0) == lane }
                    + (try store.storedRun(
                        chat: lane.chat, author: lane.author, from: conflict.lower.sequence,
                        limit: ForkProof.maxBranchMessages + 1))
                guard let proof = ForkEvidence.proof(of: conflict, through: pool) else {
                    logger.info(
                        "a fork is not provable yet: a branch does not reach a head here",
                        metadata: [
                            "author": "\(lane.author.shortHex)", "sequence": "\(conflict.lower.sequence)",
                        ])
                    continue
                }
                lowest[lane] = proof
            }
            await keep(Array(lowest.values), from: nil)
        } catch {
            logger.warning(
                "looking for forks in a stored batch failed; sync finds them again", metadata: ["error": "\(error)"])
        }
    }

    /// The slots where the batch and the store disagree: a message refused because its slot holds
    /// another (`equivocation`), which also disagrees with the slot below when it names another
    /// `previous` (two whole branches, one stored here, the other arriving by sync, split lower down);
    /// and any stored message whose neighbour in its author's chain does not link to it (a `previous`
    /// naming another message, or none while the one below is held).
    private func forkConflicts(stored batch: [Message], outcomes: [InsertOutcome]) throws -> [ForkEvidence.Conflict] {
        var conflicts: [ForkEvidence.Conflict] = []
        var inserted: [AuthorLane: [Message]] = [:]
        var forks: [ChatID: ChatForks] = [:]
        func isSettled(_ message: Message) throws -> Bool {
            // A fork at or below this slot is proven already: another one above it changes nothing.
            let known = try forks[message.chat] ?? store.forks(chat: message.chat)
            forks[message.chat] = known
            return !known.counts(message)
        }
        func stored(_ lane: AuthorLane, at sequence: UInt64) throws -> Message? {
            guard sequence >= 1 else { return nil }
            return try store.storedRun(chat: lane.chat, author: lane.author, from: sequence, limit: 1).first {
                $0.sequence == sequence
            }
        }
        for (message, outcome) in zip(batch, outcomes) {
            switch outcome {
            case .inserted: inserted[AuthorLane(of: message), default: []].append(message)
            case .equivocation:
                let lane = AuthorLane(of: message)
                if let below = try stored(lane, at: message.sequence - 1),
                    ForkEvidence.disagree(lower: below, upper: message),
                    try !isSettled(below)
                {
                    conflicts.append(ForkEvidence.Conflict(lower: below, upper: message))
                }
                guard try !isSettled(message), let held = try stored(lane, at: message.sequence), held.id != message.id
                else { continue }
                conflicts.append(ForkEvidence.Conflict(lower: held, upper: message))
            default: continue
            }
        }
        for (lane, messages) in inserted {
            let sequences = Set(messages.map(\.sequence))
            // What the receive path stored last in this lane, before this batch: a batch that extends
            // it is checked against it in memory (`LaneTops`).
            let known = laneTops.withLock { tops in
                defer { for message in messages { tops.note(message) } }
                return tops.top(of: lane)
            }
            var pairs = ForkEvidence.conflicts(within: messages)
            // Only the stored neighbours just outside the batch's runs are looked at, by id first (no
            // message decoded unless it disagrees): inside the runs the batch itself says.
            for message in messages {
                let below = message.sequence - 1
                if below >= 1, !sequences.contains(below) {
                    let id =
                        known?.sequence == below
                        ? known?.id : try store.messageID(chat: lane.chat, author: lane.author, sequence: below)
                    if let id, message.previous != id, let lower = try stored(lane, at: below) {
                        pairs.append(ForkEvidence.Conflict(lower: lower, upper: message))
                    }
                }
                // Above the lane's top nothing is held: the usual case, answered without a read.
                let above = message.sequence + 1
                if known.map({ message.sequence < $0.sequence }) ?? true, !sequences.contains(above),
                    let upper = try stored(lane, at: above),
                    ForkEvidence.disagree(lower: message, upper: upper)
                {
                    pairs.append(ForkEvidence.Conflict(lower: message, upper: upper))
                }
            }
            for conflict in pairs where try !isSettled(conflict.lower) { conflicts.append(conflict) }
        }
        return conflicts
    }

    /// Fork proofs from a peer: each checked (signatures and links), kept when it is new or shows an
    /// earlier fork, and passed on to the chat's other members once.
    func receiveForkProofs(_ received: [(peer: PeerID, bytes: [UInt8])]) async {
        var valid: [(ForkProof, PeerID)] = []
        var forks: [ChatID: ChatForks] = [:]
        for (peer, bytes) in received {
            // A copy of a proof held (or of one at a later slot) changes nothing: it is not verified
            // again, so resending proofs costs a member's peers no signature checks.
            if let slot = ForkProof.slot(inEncoding: bytes) {
                let known = forks[slot.chat] ?? (try? store.forks(chat: slot.chat)) ?? .none
                forks[slot.chat] = known
                if let held = known.forkedFrom[slot.author], held <= slot.sequence { continue }
            }
            let proof: ForkProof
            do { proof = try ForkProof(decoding: bytes) } catch {
                await engine.reject(error.isBadSignature ? .badSignature : .malformed)
                continue
            }
            guard let members = try? store.members(of: proof.chat), members.contains(peer), members.contains(me) else {
                await engine.reject(.notMember)
                continue
            }
            // About an author with messages here (admitted as a member when they were stored), at a slot
            // up to one above its highest held: a stranger's keys cannot fill the table, and a member
            // cannot have its peers keep and spread an endless series of proofs about slots nobody holds.
            // A proof whose messages have not arrived yet comes again in answer to this node's chain tops.
            guard let next = try? store.nextSequence(chat: proof.chat, author: proof.author), next > 1,
                proof.sequence <= next
            else { continue }
            valid.append((proof, peer))
        }
        for (proof, peer) in valid { await keep([proof], from: peer) }
    }

    /// Stores the proofs; each kept one is logged, counted and sent to every current member of its chat
    /// but this node and `source`, and the next sync round asks every member again (a member that
    /// missed the push learns of the fork from the chain tops, §10).
    private func keep(_ proofs: [ForkProof], from source: PeerID?) async {
        for proof in proofs {
            do {
                guard try await store.recordFork(proof, atMillis: clock.wallMillis) else { continue }
                await engine.reject(.forkProven)
                logger.warning(
                    "an author signed two histories: its messages from this sequence on count for nothing",
                    metadata: [
                        "author": "\(proof.author.shortHex)", "chat": "\(proof.chat.shortHex)",
                        "sequence": "\(proof.sequence)",
                    ])
                let members = try store.members(of: proof.chat) ?? []
                syncProgress.forgetReceived(chat: proof.chat)
                let evidence = Frame.forkEvidence(proof)
                await transmit(
                    Dictionary(
                        members.filter { $0 != me && $0 != source }.map { ($0, evidence) },
                        uniquingKeysWith: { a, _ in a }))
            } catch {
                logger.warning("could not keep a fork proof; sync brings it again", metadata: ["error": "\(error)"])
            }
        }
    }

    /// The chain tops a member sent beside its sync request: the proofs it lacks, our own request
    /// when it holds proofs we lack, and, for each author whose message at the member's top differs
    /// from ours, our run around that slot up to a head, so that the member holds both branches.
    func answerChainTops(_ tops: ChainTops, chat: ChatID, from peer: PeerID) throws -> [Frame] {
        guard let members = try store.members(of: chat), members.contains(peer), members.contains(me) else { return [] }
        let ours = try store.chainTops(chat: chat)
        var frames: [Frame] = []
        let lacking = try store.forkProofEncodings(chat: chat).filter { proof in
            tops.forks[proof.author].map { $0 > proof.sequence } ?? true
        }
        for proof in lacking.prefix(Self.maxProofsPerReply) {
            frames += Frame.forkEvidence(encoded: proof.encoded)
        }
        if tops.forks.contains(where: { author, sequence in ours.forks[author].map { $0 > sequence } ?? true }) {
            frames += try syncRequest(chat: chat, to: [peer])
        }
        let forks = ChatForks(forkedFrom: ours.forks)
        // Within the sync batch, like any reply: made-up tops cannot make this node send more than a request could.
        var budget = configuration.syncBatch
        for (author, top) in tops.tops.sorted(by: { $0.key < $1.key })
        where budget > 0 && forks.counts(author: author, sequence: top.sequence) {
            if let mine = ours.tops[author], mine.sequence == top.sequence, mine.id == top.id { continue }
            guard top.sequence <= UInt64(Int64.max) - UInt64(Self.maxHeadDistance),
                let held = try store.messageID(chat: chat, author: author, sequence: top.sequence), held != top.id
            else { continue }
            // From up to `forkSearchWindow` below the slot (two branches may have split lower down: each slot
            // the member holds otherwise is one more fork it proves, the lowest one counting) to a head at
            // or above it, so that everything sent can be accepted.
            let start = top.sequence > Self.forkSearchWindow ? top.sequence - Self.forkSearchWindow : 1
            let run = try store.encodings(
                chat: chat, author: author, in: [start...(top.sequence + UInt64(Self.maxHeadDistance) - 1)],
                limit: min(Int(top.sequence - start) + Self.maxHeadDistance, budget))
            // Only a run up to a head can prove anything: without one, sending it would only repeat every round.
            guard let head = run.firstIndex(where: { $0.isHead && $0.sequence >= top.sequence }) else { continue }
            frames += run[...head].map { .message($0.encoded) }
            budget -= head + 1
        }
        return frames
    }

    /// How far below a differing top a reply reaches for the slot where two branches split (§10).
    static let forkSearchWindow: UInt64 = 64
    /// Proofs a member lacks sent in one reply (each up to a datagram); the next round sends more.
    static let maxProofsPerReply = 8
}
