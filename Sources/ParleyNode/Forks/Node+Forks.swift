import Logging
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
            let conflicts = try forkConflicts(stored: batch, outcomes: outcomes)
            guard !conflicts.isEmpty else { return }
            var proofs: [ForkProof] = []
            for conflict in conflicts {
                let lane = received.filter { $0.chat == conflict.lower.chat && $0.author == conflict.lower.author }
                let pool = lane + (try store.storedRun(
                    chat: conflict.lower.chat, author: conflict.lower.author, from: conflict.lower.sequence, limit: ForkProof.maxBranchMessages + 1))
                guard let proof = ForkEvidence.proof(of: conflict, through: pool) else {
                    logger.info("a fork is not provable yet: a branch does not reach a head here", metadata: [
                        "author": "\(conflict.lower.author.shortHex)", "sequence": "\(conflict.lower.sequence)"])
                    continue
                }
                proofs.append(proof)
            }
            await keep(proofs, from: nil)
        } catch {
            logger.warning("looking for forks in a stored batch failed; sync finds them again", metadata: ["error": "\(error)"])
        }
    }

    /// The slots where the batch and the store disagree: a message refused because its slot holds
    /// another (`equivocation`), and any stored message whose neighbour in its author's chain does
    /// not link to it (a `previous` naming another message, or none while the one below is held).
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
        for (message, outcome) in zip(batch, outcomes) {
            switch outcome {
            case .inserted: inserted[AuthorLane(of: message), default: []].append(message)
            case .equivocation:
                guard try !isSettled(message),
                      let held = try store.storedRun(chat: message.chat, author: message.author, from: message.sequence, limit: 1).first,
                      held.id != message.id else { continue }
                conflicts.append(ForkEvidence.Conflict(lower: held, upper: message))
            default: continue
            }
        }
        for (lane, messages) in inserted {
            let sequences = Set(messages.map(\.sequence))
            // Only the stored neighbours just outside the batch's runs are read: inside them the batch says.
            var neighbours: [Message] = []
            for sequence in sequences {
                for next in [sequence - 1, sequence + 1] where next >= 1 && next <= UInt64(Int64.max) && !sequences.contains(next) {
                    neighbours += try store.storedRun(chat: lane.chat, author: lane.author, from: next, limit: 1).filter { $0.sequence == next }
                }
            }
            let fresh = Set(messages.map(\.id))
            for conflict in ForkEvidence.conflicts(within: messages + neighbours)
            where fresh.contains(conflict.lower.id) || fresh.contains(conflict.upper.id) {
                if try !isSettled(conflict.lower) { conflicts.append(conflict) }
            }
        }
        return conflicts
    }

    /// Fork proofs from a peer: each checked (signatures and links), kept when it is new or shows an
    /// earlier fork, and passed on to the chat's other members once.
    func receiveForkProofs(_ received: [(peer: PeerID, bytes: [UInt8])]) async {
        var valid: [(ForkProof, PeerID)] = []
        for (peer, bytes) in received {
            let proof: ForkProof
            do { proof = try ForkProof(decoding: bytes) } catch {
                await engine.reject(error.isBadSignature ? .badSignature : .malformed)
                continue
            }
            // From a member of a chat held here, about an author with messages in it (admitted as a
            // member when they were stored): a stranger's keys cannot fill the table.
            guard let members = try? store.members(of: proof.chat), members.contains(peer), members.contains(me),
                  (try? store.nextSequence(chat: proof.chat, author: proof.author)).map({ $0 > 1 }) == true else {
                await engine.reject(.notMember)
                continue
            }
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
                logger.warning("an author signed two histories: its messages from this sequence on count for nothing", metadata: [
                    "author": "\(proof.author.shortHex)", "chat": "\(proof.chat.shortHex)", "sequence": "\(proof.sequence)"])
                let members = try store.members(of: proof.chat) ?? []
                syncProgress.forgetReceived(chat: proof.chat)
                await transmit(Dictionary(
                    members.filter { $0 != me && $0 != source }.map { ($0, [Frame.forkProof(proof.encoded)]) }, uniquingKeysWith: { a, _ in a }))
            } catch {
                logger.warning("could not keep a fork proof; sync brings it again", metadata: ["error": "\(error)"])
            }
        }
    }

    /// The chain tops a member sent beside its sync request: the proofs it lacks, our own request
    /// when it holds proofs we lack, and, for each author whose message at the member's top differs
    /// from ours, our run from that slot up to a head, so that the member holds both branches.
    func answerChainTops(_ tops: ChainTops, chat: ChatID, from peer: PeerID) throws -> [Frame] {
        guard let members = try store.members(of: chat), members.contains(peer), members.contains(me) else { return [] }
        let ours = try store.chainTops(chat: chat)
        var frames: [Frame] = []
        for proof in try store.forkProofs(chat: chat) where tops.forks[proof.author].map({ $0 > proof.sequence }) ?? true {
            frames.append(.forkProof(proof.encoded))
        }
        if tops.forks.contains(where: { author, sequence in ours.forks[author].map { $0 > sequence } ?? true }) {
            frames += try syncRequest(chat: chat, to: [peer])
        }
        let forks = ChatForks(forkedFrom: ours.forks)
        for (author, top) in tops.tops.sorted(by: { $0.key < $1.key }) where forks.counts(author: author, sequence: top.sequence) {
            if let mine = ours.tops[author], mine.sequence == top.sequence, mine.id == top.id { continue }
            guard let held = try store.messageID(chat: chat, author: author, sequence: top.sequence), held != top.id else { continue }
            let run = try store.encodings(chat: chat, author: author, in: [top.sequence...(top.sequence + UInt64(Self.maxHeadDistance))],
                                          limit: Self.maxHeadDistance)
            let end = run.firstIndex(where: \.isHead).map { $0 + 1 } ?? run.count
            frames += run[..<end].map { .message($0.encoded) }
        }
        return frames
    }
}
