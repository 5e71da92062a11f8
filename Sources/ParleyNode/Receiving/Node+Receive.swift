import Foundation
import Logging
import ParleyCore
import ParleyCrypto
import ParleyStore
import Synchronization

/// A batch decrypted and its new messages checked: the CPU-bound half of receiving, which may run
/// while the batch before it is still being stored.
struct PreparedBatch: Sendable {
    let now: Duration
    let opened: NodeEngine.Opened
    let messages: Node.CheckedMessages
}

/// The receive path, built for bursts: one engine hop to decrypt the whole batch, signature checks
/// spread over the cores, one store transaction for every message in it, then one ack per peer.
extension Node {
    /// Decrypts the batch and verifies the signatures of the messages it carries that are not stored yet.
    /// Handshake answers go out at once: the engine already uses the sessions they complete.
    func openAndVerify(_ batch: [Datagram]) async -> PreparedBatch {
        let now = clock.now
        let opened = await engine.open(batch, now: now, wallMillis: clock.wallMillis)
        logger.trace("batch", metadata: [
            "datagrams": "\(batch.count)", "frames": "\(opened.frames.reduce(0) { $0 + $1.frames.count })",
            "established": "\(opened.established.map(\.shortHex))",
        ])
        await transmit(opened.replies)
        var incoming: [(peer: PeerID, bytes: [UInt8])] = []
        for (peer, frames) in opened.frames {
            for case let .message(bytes) in frames { incoming.append((peer, bytes)) }
        }
        return PreparedBatch(now: now, opened: opened, messages: await check(incoming))
    }

    /// Everything else, in arrival order: handshake replies, invites, acks, sync, receipts, presence,
    /// and the checked messages stored in one transaction.
    func storeAndReply(_ prepared: PreparedBatch) async throws {
        let (now, opened) = (prepared.now, prepared.opened)
        try await greet(Set(opened.established + opened.announced))
        await recordHeard(direct: Set(opened.frames.map(\.peer) + opened.established), relayed: [])

        var replies: [PeerID: [Frame]] = [:]
        var acked: [(MessageID, PeerID)] = []
        var invitesAcked: [OutboundKey] = []
        var acceptances: [(chat: ChatID, peer: PeerID)] = []
        var reads: [(peer: PeerID, chat: ChatID, ids: [MessageID])] = []
        var readsAcked: [(peer: PeerID, ids: [MessageID])] = []
        var typing: [(peer: PeerID, chat: ChatID, active: Bool)] = []
        var envelopes: [(peer: PeerID, publisher: PeerID, hold: UInt32, sealed: [UInt8])] = []
        var introductionsAsked: [(requester: PeerID, target: PeerID)] = []
        var introductions: [(introducer: PeerID, peer: PeerID, address: PeerAddress)] = []
        var forkProofs: [(peer: PeerID, bytes: [UInt8])] = []
        for (peer, frames) in opened.frames {
            for frame in frames {
                switch frame {
                case .message: break // checked in `prepare`
                case let .invite(bytes): replies[peer, default: []] += try await receiveInvite(bytes, from: peer)
                case let .inviteAck(chat):
                    invitesAcked.append(.invite(chat, to: peer))
                    acceptances.append((chat, peer))
                case let .ack(ids): acked += ids.map { ($0, peer) }
                case let .syncRequest(chat, vector): replies[peer, default: []] += try syncReply(chat: chat, vector: vector, to: peer)
                case let .syncEnd(chat, end):
                    // A `more` was answered and followed up before this batch was stored (`continueSyncs`).
                    if end != .more { syncProgress.answered(end, by: peer, chat: chat) }
                case let .needInvite(chat):
                    if let invite = try store.chat(chat), try store.members(of: chat)?.contains(peer) == true {
                        replies[peer, default: []].append(.invite(invite.encoded))
                    }
                case let .read(chat, ids): reads.append((peer, chat, ids))
                case let .readAck(ids): readsAcked.append((peer, ids))
                case let .presence(beat): try await receivePresence(beat, from: peer)
                case let .typing(chat, active): typing.append((peer, chat, active))
                case let .ballotRelay(publisher, hold, sealed): envelopes.append((peer, publisher, hold, sealed))
                case let .meetRequest(target): introductionsAsked.append((peer, target))
                case let .meet(target, address): introductions.append((peer, target, address))
                case let .chainTops(chat, tops): replies[peer, default: []] += try answerChainTops(tops, chat: chat, from: peer)
                case let .forkProof(bytes): forkProofs.append((peer, bytes))
                }
            }
        }
        await introduce(introductionsAsked)
        await meet(introductions)
        await answerAnnounces(opened.answerable)
        try await store.recordAcceptances(acceptances)
        try await receiveTyping(typing)
        for (peer, frames) in try await receiveMessages(prepared.messages) { replies[peer, default: []] += frames }
        for (peer, frames) in try await receiveReads(reads) { replies[peer, default: []] += frames }
        // After the batch's messages: a proof may be about an author whose first message came with it.
        await receiveForkProofs(forkProofs)
        // After the batch's messages are stored: an envelope may be for a poll the same batch brought.
        for envelope in envelopes {
            await receiveBallotRelay(publisher: envelope.publisher, holdMillis: envelope.hold, sealed: envelope.sealed, from: envelope.peer)
        }
        if !invitesAcked.isEmpty || !acked.isEmpty || !readsAcked.isEmpty {
            let readKeys = readsAcked.flatMap { acked in acked.ids.map { OutboundKey.read($0, to: acked.peer) } }
            let keys = invitesAcked + readKeys + acked.map { OutboundKey.message($0.0, to: $0.1) }
            await transmit(await engine.acknowledge(keys, now: now, wallMillis: clock.wallMillis))
        }
        try await store.readReceiptsAcknowledged(readsAcked.map { ($0.peer, $0.ids) })
        try await recordAcks(acked)
        await transmit(replies)
    }

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
    private func check(_ incoming: [(peer: PeerID, bytes: [UInt8])]) async -> CheckedMessages {
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
        let covered = heads.covered.reduce(into: [MessageID: [Message]]()) { $0[$1.checker, default: []].append($1.signed) }
        return CheckedMessages(
            decoded: decoded, known: known, verified: verified, rejected: rejected, waiting: links.waiting, covered: covered)
    }

    /// Holds the batch's chained messages and releases what the verified heads vouch for, down each
    /// chain (the heads themselves are not returned). What stays held is looked at again at store time
    /// (`releaseAtStoreTime`), against what is stored by then. `evicted` counts the held messages evicted
    /// to make room for these (`ChainAssembler.hold`).
    private func vouch(
        for chained: [(peer: PeerID, message: Message)], heads: [(message: Message, peer: PeerID)]
    ) -> (released: [(message: Message, peer: PeerID)], brokenLinks: Int, waiting: [(peer: PeerID, message: Message)], evicted: Int) {
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

    /// `messages` by chat, then author, then sequence; ties keep their order. A checked burst comes as its
    /// heads, then each head's chain walked down, so it is sorted nearly every time: on integer keys (the
    /// rank of each chat and author pair, then the sequence), as comparing the 32-byte ids themselves
    /// took a twentieth of a catch-up's CPU.
    static func inAuthorOrder<Peer>(_ messages: [(message: Message, peer: Peer)]) -> [(message: Message, peer: Peer)] {
        var lanes: [AuthorLane: Int] = [:]
        var arrived: [(lane: Int, sequence: UInt64)] = []
        arrived.reserveCapacity(messages.count)
        for entry in messages {
            let lane = AuthorLane(of: entry.message)
            let found = lanes[lane] ?? lanes.count
            if found == lanes.count { lanes[lane] = found }
            arrived.append((found, entry.message.sequence))
        }
        // The few distinct lanes are ranked by their bytes; the keys then compare as integers.
        var rank = [Int](repeating: 0, count: lanes.count)
        for (position, lane) in lanes.sorted(by: { $0.key < $1.key }).enumerated() { rank[lane.value] = position }
        let keys = arrived.enumerated().map { (rank: rank[$0.element.lane], sequence: $0.element.sequence, index: $0.offset) }
        let before = { (a: (rank: Int, sequence: UInt64, index: Int), b: (rank: Int, sequence: UInt64, index: Int)) in
            (a.rank, a.sequence, a.index) < (b.rank, b.sequence, b.index)
        }
        if zip(keys, keys.dropFirst()).allSatisfy(before) { return messages }
        return keys.sorted(by: before).map { messages[$0.index] }
    }

    /// The batch's messages still held, looked at once the batch stored beside this one's check has
    /// committed: one already stored (a retransmit that crossed its first copy) is acknowledged; one
    /// whose successor is stored (a lost datagram's retransmit) is vouched for by it, and vouches
    /// further down in turn. Two store reads for all of them.
    private func releaseAtStoreTime(
        _ waiting: [(peer: PeerID, message: Message)]
    ) -> (released: [(message: Message, peer: PeerID)], known: [MessageID], brokenLinks: Int) {
        let stillHeld = chains.withLock { chains in waiting.filter { chains.isHeld($0.message.id) } }
        guard !stillHeld.isEmpty else { return ([], [], 0) }
        let storedIDs = (try? store.storedIDs(among: stillHeld.map(\.message))) ?? []
        let unstored = stillHeld.filter { !storedIDs.contains($0.message.id) }
        let stored = (try? store.storedPrevious(at: unstored.compactMap { ChainAssembler.slot(of: $0.message).after })) ?? [:]
        let named = unstored.filter { held in ChainAssembler.slot(of: held.message).after.flatMap { stored[$0] } == held.message.id }
        return chains.withLock { chains in
            for id in storedIDs { _ = chains.take(id) }
            let starts = named.compactMap { chains.take($0.message.id) }.map { (message: $0.message, peer: $0.peer) }
            let (more, broken) = Self.releaseChains(from: starts, in: &chains)
            return (starts + more, Array(storedIDs), broken)
        }
    }

    /// Everything the accepted messages vouch for, transitively (not the accepted ones themselves).
    private static func releaseChains(
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

    /// Stores (one transaction) and acknowledges a batch's checked messages; already stored ones are
    /// acknowledged again.
    private func receiveMessages(_ checked: CheckedMessages) async throws -> [PeerID: [Frame]] {
        var (decoded, known, verified) = (checked.decoded, checked.known, checked.verified)
        var rejected = checked.rejected
        guard !decoded.isEmpty || !rejected.isEmpty else { return [:] }
        if !checked.waiting.isEmpty {
            let late = releaseAtStoreTime(checked.waiting)
            verified.messages += late.released
            known.formUnion(late.known)
            rejected[.brokenChain, default: 0] += late.brokenLinks
        }
        // Once, in each author's order, so local numbers follow it: a message both accepted and
        // released by a walk (a covered head held from an earlier delivery) is stored once.
        var seen = Set<MessageID>()
        verified.messages = Self.inAuthorOrder(verified.messages.filter { seen.insert($0.message.id).inserted })
        // What a refused message vouched for is refused with it (the store keeps a covered head below it
        // signed instead, when it can): a run stored without its head would be sent on by sync forever.
        let outcomes = try await store.insert(
            verified.messages.map(\.message), grants: openGrants(verified.messages.map(\.message)),
            receivedAtMillis: clock.wallMillis, ownAuthor: me,
            vouching: Vouching(among: verified.messages.map(\.message), covered: checked.covered.values.flatMap { $0 }))
        var replies: [PeerID: [Frame]] = [:]
        var acks: [PeerID: [MessageID]] = [:]
        for (peer, message) in decoded where known.contains(message.id) { acks[peer, default: []].append(message.id) }
        var unknownChats: [PeerID: Set<ChatID>] = [:]
        var storedVotes: [Message] = []
        var ballotKeyChats: Set<ChatID> = []
        var closes: [Message] = []
        var (fromAuthors, relayed) = (0, 0)
        var relayedAuthors: [(author: PeerID, timestampMillis: Int64, via: PeerID)] = []
        for ((message, peer), outcome) in zip(verified.messages, outcomes) {
            switch outcome {
            case let .inserted(stored):
                // Own messages coming back (a store restored from a backup) are neither.
                if message.author != me {
                    if peer == message.author { fromAuthors += 1 } else {
                        relayed += 1
                        relayedAuthors.append((message.author, message.timestampMillis, peer))
                    }
                }
                chatState.observe(chat: message.chat, lamport: stored.message.lamport)
                acks[peer, default: []].append(message.id)
                if VoteChoice(tag: message.tag) != nil { storedVotes.append(message) }
                if message.tag == .ballotKey { ballotKeyChats.insert(message.chat) }
                if message.tag == .pollClose { closes.append(message) }
            case .duplicate:
                acks[peer, default: []].append(message.id)
            case .equivocation:
                // Acknowledged like a duplicate: the slot is settled here, and asking again would not change it.
                rejected[.equivocation, default: 0] += 1
                acks[peer, default: []].append(message.id)
                logger.warning("an author signed two messages for one sequence", metadata: [
                    "author": "\(message.author.shortHex)", "chat": "\(message.chat.shortHex)", "sequence": "\(message.sequence)",
                ])
            case .unknownChat:
                rejected[.unknownChat, default: 0] += 1
                unknownChats[peer, default: []].insert(message.chat)
            case .notMember:
                rejected[.notMember, default: 0] += 1
            case .outOfRange:
                rejected[.outOfRange, default: 0] += 1
            case .malformedContent:
                rejected[.malformed, default: 0] += 1
            case .unknownEpoch:
                break // not acknowledged: it comes again, by retransmit or sync, after the change that starts its epoch
            case .unvouched:
                break // not acknowledged, nor counted: what vouched for it is, under its own reason
            }
        }
        await engine.countStored(fromAuthors: fromAuthors, relayed: relayed)
        await recordHeard(direct: [], relayed: relayedAuthors)
        await proveForks(
            stored: verified.messages.map(\.message), outcomes: outcomes,
            received: verified.messages.map(\.message) + checked.covered.values.flatMap { $0 })
        rejected[.notAPoll, default: 0] += try votesForNonPolls(storedVotes)
        for (reason, count) in rejected where count > 0 { await engine.reject(reason, count: count) }
        logger.debug("stored messages", metadata: [
            "received": "\(decoded.count)", "stored": "\(outcomes.count { if case .inserted = $0 { true } else { false } })",
            "ids": "\(verified.messages.prefix(8).map(\.message.id.shortHex))",
        ])
        for (peer, ids) in acks {
            for chunk in stride(from: 0, to: ids.count, by: Frame.maxAcksPerFrame) {
                replies[peer, default: []].append(.ack(Array(ids[chunk..<min(chunk + Frame.maxAcksPerFrame, ids.count)])))
            }
        }
        for (peer, chats) in unknownChats { replies[peer, default: []] += try chats.filter(asksForInvite).map { .needInvite($0) } }
        for chat in ballotKeyChats {
            // The batch is stored: a failed answer must not lose its acks; the next key or start retries.
            do { try await answerBallotKeyCall(chat: chat) } catch {
                logger.warning("publishing this node's ballot key failed", metadata: ["error": "\(error)"])
            }
        }
        await forgetSecretChoices(closedBy: closes)
        return replies
    }

    /// How many of these votes target a held message that is not a poll. Such votes are still
    /// stored, as every member stores them (refusing them would make stores depend on arrival order,
    /// and sync would resend them forever), but no tally counts them (`PollRules`); they are counted
    /// here so the attempt shows. One store read for the whole batch.
    private func votesForNonPolls(_ votes: [Message]) throws -> Int {
        let tags = try store.tags(of: Set(votes.flatMap(PollRules.voteTargets)))
        return votes.count { vote in PollRules.voteTargets(of: vote).contains { tags[$0].map { $0 != .poll } ?? false } }
    }

    /// The keys membership changes in the batch grant this node. The store keeps them only for
    /// changes written by the chat's creator; a grant that does not open grants nothing.
    private func openGrants(_ messages: [Message]) -> [MessageID: [EpochKey]] {
        var grants: [MessageID: [EpochKey]] = [:]
        for message in messages where message.tag == .membership {
            guard let change = try? MembershipChange(decoding: message.content) else { continue }
            do {
                if let keys = try change.keys(for: identity) { grants[message.id] = keys }
            } catch {
                logger.warning("a membership change holds a key grant that does not open", metadata: ["message": "\(message.id.shortHex)"])
            }
        }
        return grants
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

    private func receiveInvite(_ bytes: [UInt8], from peer: PeerID) async throws -> [Frame] {
        let invite: ChatInvite
        do { invite = try ChatInvite(decoding: bytes) } catch {
            await engine.reject(error.isUnsupportedVersion ? .unsupportedVersion : error.isBadSignature ? .badSignature : .malformed)
            return []
        }
        // A member added later is not in the invite: its creator sends it beside the change that adds
        // the member, in either order (a change for a chat not joined yet comes again by retransmit).
        guard invite.isMember(me) && invite.isMember(peer) || peer == invite.creator else {
            await engine.reject(.notMember)
            return []
        }
        // Content in a legacy chat travels unsealed: this node joins no new one (chats it already holds keep working).
        guard try invite.isKeyed || store.chat(invite.id) != nil else {
            await engine.reject(.unsealedChat)
            return []
        }
        let trusted = try configuration.invitePolicy == .anyone || invite.creator == me || store.contact(peer: invite.creator) != nil
        // From a stranger, and already held (pending or declined): nothing more to do, and
        // nothing is counted again or written (one read).
        if !trusted, try store.heldInvite(invite.id) != nil { return [] }
        let key: EpochKey?
        do { key = try invite.key(for: identity) } catch {
            await engine.reject(.malformed)
            return []
        }
        // From a stranger: held for the user (`parley invites`), not acknowledged, so the creator's
        // view says it waits. Adding the creator as a contact also lets the chat's next message
        // (through `needInvite`, see `asksForInvite`) bring the invite back and join it.
        guard trusted else {
            if case let .held(dropped) = try await store.holdInvite(invite, from: peer, receivedAtMillis: clock.wallMillis) {
                await engine.reject(.uninvited)
                if dropped > 0 { await engine.reject(.pendingInviteDropped, count: dropped) }
            }
            return []
        }
        return try await join(invite, key: key, from: peer)
    }

    /// Stores the chat (if new), asks every other member for its history, and acknowledges the invite.
    func join(_ invite: ChatInvite, key: EpochKey?, from peer: PeerID) async throws -> [Frame] {
        let joined = try await store.saveChat(invite, key: key, joinedAtMillis: clock.wallMillis)
        let others = joined ? try (store.members(of: invite.id) ?? []).filter { $0 != me && $0 != peer } : []
        let request = try syncRequest(chat: invite.id, to: others + [peer])
        if joined {
            logger.info("joined chat", metadata: ["chat": "\(invite.id.shortHex)", "creator": "\(invite.creator.shortHex)"])
            await transmit(Dictionary(others.map { ($0, request) }, uniquingKeysWith: { first, _ in first }))
        }
        return [.inviteAck(invite.id)] + request
    }

    /// Every ack is recorded, not only awaited ones: a member that got a message by sync after the
    /// retransmits gave up still moves it to delivered. The store ignores acks for others' messages;
    /// those of others' messages this node relayed by sync lately do not even reach it (`relayed`).
    /// The `didSend` hook hears of each own message whose delivered count grew.
    func recordAcks(_ acked: [(MessageID, PeerID)]) async throws {
        let acks = relayed.withLock { relayed in acked.filter { !relayed.contains($0.0) } }
        guard !acks.isEmpty else { return }
        let progress = try await store.recordDeliveries(acks.map { (message: $0.0, peer: $0.1) }, atMillis: clock.wallMillis)
        guard let didSend = configuration.sendHooks.didSend else { return }
        for (id, delivery) in progress where delivery.grew {
            await didSend(.delivered(id, to: delivery.deliveredTo, of: delivery.recipients))
        }
    }
}
