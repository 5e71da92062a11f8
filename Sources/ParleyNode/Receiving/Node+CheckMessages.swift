import Foundation
import ParleyCore
import ParleyCrypto
import ParleyStore
import Synchronization

/// Checking a batch's messages, before they are stored: decoded, copies of stored ones set apart, heads'
/// signatures verified over the cores, chained messages vouched for by a verified head (`ChainAssembler`).
extension Node {
    /// A batch's messages, decoded, with those already stored set apart and the rest verified.
    struct CheckedMessages: Sendable {
        var decoded: [(peer: PeerID, message: Message)] = []
        var known: Set<MessageID> = []
        var verified = Verified()
        var rejected: [ProtocolRejection: Int] = [:]
        /// Chained messages of the batch still held after the check: looked at again when the batch
        /// is stored, once the batch stored beside this check has committed (`releaseAtStoreTime`).
        var waiting: [(peer: PeerID, message: Message)] = []
        /// Checked head → the signed forms of the heads it covered (stored without their signature):
        /// if the store refuses the checked head, it keeps the highest one it can signed (`Vouching`).
        var covered: [MessageID: [Message]] = [:]

        var isBurst: Bool { verified.messages.count > MessageStore.maxInsertOnCallerThread }
    }

    /// Messages already stored (retransmits, overlapping sync replies) are not checked again:
    /// their id is the hash of the exact body that was vouched for when they were first stored.
    /// The heads that need it are verified (`checkHeads`, spread over the cores); chained messages are
    /// accepted once an accepted message vouches for them (`ChainAssembler`), and wait for one until then.
    func check(_ incoming: [(peer: PeerID, bytes: [UInt8])]) async -> CheckedMessages {
        guard !incoming.isEmpty else { return CheckedMessages() }
        var decoded: [(peer: PeerID, message: Message)] = []
        var rejected: [ProtocolRejection: Int] = [:]
        var positions: [MessageID: Int] = [:]
        for (peer, bytes) in incoming {
            do {
                let message = try Message(decoding: bytes)
                // A later copy has the same body; a signed copy of a chained one is kept instead.
                if let index = positions[message.id] {
                    if message.isHead, !decoded[index].message.isHead { decoded[index] = (peer, message) }
                } else {
                    positions[message.id] = decoded.count
                    decoded.append((peer, message))
                }
            } catch {
                rejected[error.isUnsupportedVersion ? .unsupportedVersion : .malformed, default: 0] += 1
            }
        }
        // Copies need no check (and a chained message already stored must be found, or it would wait for
        // a head stored long ago). Live traffic is told new without a read: above its author's head.
        let known = (try? store.storedIDs(among: decoded.map(\.message))) ?? []
        let fresh = decoded.filter { !known.contains($0.message.id) }
        // Only what a member of its chat delivers is held: a stranger with a session cannot fill the
        // holding (the memberships are the store's cached ones).
        var members: [ChatID: Set<PeerID>] = [:]
        for chat in Set(fresh.map(\.message.chat)) {
            members[chat] = Set((try? store.membership(of: chat))?.members ?? [])
        }
        let holdable = fresh.filter { members[$0.message.chat]?.contains($0.peer) == true }
        let heads = await checkHeads(fresh, holdable: holdable)
        var verified = heads.verified
        rejected[.badSignature, default: 0] += verified.badSignature
        let coveredHeads = heads.covered.map { (message: $0.signed.withoutSignature, peer: $0.peer) }
        let links = vouch(for: holdable.filter { !$0.message.isHead }, heads: verified.messages + coveredHeads)
        verified.messages += coveredHeads + links.released
        rejected[.brokenChain, default: 0] += links.brokenLinks
        rejected[.heldEvicted, default: 0] += links.evicted
        let covered = heads.covered.reduce(into: [MessageID: [Message]]()) {
            $0[$1.checker, default: []].append($1.signed)
        }
        return CheckedMessages(
            decoded: decoded, known: known, verified: verified, rejected: rejected, waiting: links.waiting,
            covered: covered)
    }

    /// Holds the batch's chained messages and releases what the verified heads vouch for, down each
    /// chain (the heads themselves are not returned). What stays held is looked at again at store time
    /// (`releaseAtStoreTime`), against what is stored by then. `evicted` counts the held messages evicted
    /// to make room for these (`ChainAssembler.hold`).
    private func vouch(
        for chained: [(peer: PeerID, message: Message)], heads: [(message: Message, peer: PeerID)]
    ) -> (
        released: [(message: Message, peer: PeerID)], brokenLinks: Int, waiting: [(peer: PeerID, message: Message)],
        evicted: Int
    ) {
        guard !chained.isEmpty || !heads.isEmpty else { return ([], 0, [], 0) }
        let now = clock.now
        return chains.withLock { chains in
            var evicted = 0
            for (peer, message) in chained {
                if case let .heldEvicting(count) = chains.hold(message, from: peer, now: now) { evicted += count }
            }
            let (released, brokenLinks) = Self.releaseChains(from: heads, in: &chains)
            return (released, brokenLinks, chained.filter { chains.isHeld($0.message.id) }, evicted)
        }
    }

    /// Verifies the heads a delivery needs checked (`HeadCheckPlan`), spread over the cores. A head a
    /// verified head covers is accepted as it is (the plan checked the links between them), to be
    /// stored without its signature; it never waits in the holding, so a full holding cannot drop it.
    /// The heads a failed head covered are verified one by one instead. Only `holdable` messages
    /// (delivered by a member of their chat) are planned, as only they could be held.
    private func checkHeads(
        _ fresh: [(peer: PeerID, message: Message)], holdable: [(peer: PeerID, message: Message)]
    ) async -> (verified: Verified, covered: [(peer: PeerID, signed: Message, checker: MessageID)]) {
        let plan = HeadCheckPlan(holdable.map(\.message))
        let planned = Set(holdable.map(\.message.id))
        let unplanned = fresh.filter { $0.message.isHead && !planned.contains($0.message.id) }
        var verified = await Self.verify(unplanned + plan.checked.map { holdable[$0] })
        let passed = Set(verified.messages.map(\.message.id))
        var covered: [(peer: PeerID, signed: Message, checker: MessageID)] = []
        var uncovered: [(peer: PeerID, message: Message)] = []
        for (index, checker) in plan.covered {
            let (entry, checkerID) = (holdable[index], holdable[checker].message.id)
            if passed.contains(checkerID) {
                covered.append((entry.peer, entry.message, checkerID))
            } else {
                uncovered.append(entry)
            }
        }
        if !uncovered.isEmpty {
            let second = await Self.verify(uncovered)
            verified.messages += second.messages
            verified.badSignature += second.badSignature
        }
        return (verified, covered)
    }

    /// Everything the accepted messages vouch for, transitively (not the accepted ones themselves).
    static func releaseChains(
        from starts: [(message: Message, peer: PeerID)], in chains: inout ChainAssembler
    ) -> (released: [(message: Message, peer: PeerID)], brokenLinks: Int) {
        var released: [(message: Message, peer: PeerID)] = []
        var brokenLinks = 0
        for start in starts {
            let (chain, broken) = chains.release(vouchedBy: start.message)
            released += chain.map { ($0.message, $0.peer) }
            brokenLinks += broken
        }
        return (released, brokenLinks)
    }

    struct Verified: Sendable {
        var messages: [(message: Message, peer: PeerID)] = []
        var badSignature = 0
    }

    /// Ed25519 checks dominate the receive cost, so large bursts are split across the cores.
    static func verify(_ decoded: [(peer: PeerID, message: Message)]) async -> Verified {
        let workers = decoded.count >= 64 ? max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8)) : 1
        if workers == 1 { return verifyChunk(decoded) }
        let chunkSize = max(1, (decoded.count + workers - 1) / workers)
        return await withTaskGroup(of: Verified.self) { group in
            for start in stride(from: 0, to: decoded.count, by: chunkSize) {
                let chunk = Array(decoded[start..<min(start + chunkSize, decoded.count)])
                group.addTask { verifyChunk(chunk) }
            }
            var all = Verified()
            for await part in group {
                all.messages += part.messages
                all.badSignature += part.badSignature
            }
            return all
        }
    }

    private static func verifyChunk(_ chunk: [(peer: PeerID, message: Message)]) -> Verified {
        var result = Verified()
        for (peer, message) in chunk {
            do { try message.verifySignature() } catch { result.badSignature += 1; continue }
            result.messages.append((message, peer))
        }
        return result
    }
}
