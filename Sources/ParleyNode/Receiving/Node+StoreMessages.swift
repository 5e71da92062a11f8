import Logging
import ParleyCore
import ParleyCrypto
import ParleyStore
import Synchronization

/// Storing a batch's checked messages: in each author's order, in one transaction, then acknowledged
/// to the peers that delivered them, with what the stored ones set off (fork proofs, ballot keys, closes).
extension Node {
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
        let keys = arrived.enumerated().map {
            (rank: rank[$0.element.lane], sequence: $0.element.sequence, index: $0.offset)
        }
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
        let stored =
            (try? store.storedPrevious(at: unstored.compactMap { ChainAssembler.slot(of: $0.message).after })) ?? [:]
        let named = unstored.filter { held in
            ChainAssembler.slot(of: held.message).after.flatMap { stored[$0] } == held.message.id
        }
        return chains.withLock { chains in
            for id in storedIDs { _ = chains.take(id) }
            let starts = named.compactMap { chains.take($0.message.id) }.map { (message: $0.message, peer: $0.peer) }
            let (more, broken) = Self.releaseChains(from: starts, in: &chains)
            return (starts + more, Array(storedIDs), broken)
        }
    }

    /// Stores (one transaction) and acknowledges a batch's checked messages; already stored ones are
    /// acknowledged again.
    func receiveMessages(_ checked: CheckedMessages) async throws -> [PeerID: [Frame]] {
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
        var amending: [Message] = []
        var insertedMessages: [Message] = []
        var files: [MessageID] = []
        var (fromAuthors, relayed) = (0, 0)
        var relayedAuthors: [(author: PeerID, timestampMillis: Int64, via: PeerID)] = []
        var relayedChats: [PeerID: Set<ChatID>] = [:] // by author
        var onward: [(message: Message, from: PeerID)] = []
        for ((message, peer), outcome) in zip(verified.messages, outcomes) {
            switch outcome {
            case let .inserted(stored):
                // Own messages coming back (a store restored from a backup) are neither.
                if message.author != me {
                    onward.append((message, peer))
                    if peer == message.author {
                        fromAuthors += 1
                    } else {
                        relayed += 1
                        relayedAuthors.append((message.author, message.timestampMillis, peer))
                        relayedChats[message.author, default: []].insert(message.chat)
                    }
                }
                chatState.observe(chat: message.chat, lamport: stored.message.lamport)
                insertedMessages.append(message)
                acks[peer, default: []].append(message.id)
                if VoteChoice(tag: message.tag) != nil { storedVotes.append(message) }
                if message.tag == .ballotKey { ballotKeyChats.insert(message.chat) }
                if message.tag == .pollClose { closes.append(message) }
                if message.tag == .edit || message.tag == .delete || message.tag == .pin { amending.append(message) }
                if message.tag == .file { files.append(message.id) }
            case .duplicate:
                acks[peer, default: []].append(message.id)
            case .equivocation:
                // Acknowledged like a duplicate: the slot is settled here, and asking again would not change it.
                rejected[.equivocation, default: 0] += 1
                acks[peer, default: []].append(message.id)
                logger.warning(
                    "an author signed two messages for one sequence",
                    metadata: [
                        "author": "\(message.author.shortHex)", "chat": "\(message.chat.shortHex)",
                        "sequence": "\(message.sequence)",
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
        let unreached = await recordHeard(direct: [], relayed: relayedAuthors)
        await relayOnward(onward)
        await askIntroductions(after: Set(unreached.flatMap { relayedChats[$0] ?? [] }))
        await proveForks(
            stored: verified.messages.map(\.message), outcomes: outcomes,
            received: verified.messages.map(\.message) + checked.covered.values.flatMap { $0 })
        rejected[.notAPoll, default: 0] += try votesForNonPolls(storedVotes)
        rejected.merge(try amendmentRefusals(amending), uniquingKeysWith: +)
        try await eraseDeleted(in: insertedMessages)
        for (reason, count) in rejected where count > 0 { await engine.reject(reason, count: count) }
        logger.debug(
            "stored messages",
            metadata: [
                "received": "\(decoded.count)",
                "stored": "\(outcomes.count { if case .inserted = $0 { true } else { false } })",
                "ids": "\(verified.messages.prefix(8).map(\.message.id.shortHex))",
            ])
        for (peer, ids) in acks {
            for chunk in stride(from: 0, to: ids.count, by: Frame.maxAcksPerFrame) {
                replies[peer, default: []].append(
                    .ack(Array(ids[chunk..<min(chunk + Frame.maxAcksPerFrame, ids.count)])))
            }
        }
        for (peer, chats) in unknownChats {
            replies[peer, default: []] += try chats.filter(asksForInvite).map { .needInvite($0) }
        }
        for chat in ballotKeyChats {
            // The batch is stored: a failed answer must not lose its acks; the next key or start retries.
            do { try await answerBallotKeyCall(chat: chat) } catch {
                logger.warning("publishing this node's ballot key failed", metadata: ["error": "\(error)"])
            }
        }
        await forgetSecretChoices(closedBy: closes)
        await fetchAutomatically(files)
        return replies
    }

    /// How many of these votes target a held message that is not a poll. Such votes are still
    /// stored, as every member stores them (refusing them would make stores depend on arrival order,
    /// and sync would resend them forever), but no tally counts them (`PollRules`); they are counted
    /// here so the attempt shows. One store read for the whole batch.
    private func votesForNonPolls(_ votes: [Message]) throws -> Int {
        let tags = try store.tags(of: Set(votes.flatMap(PollRules.voteTargets)))
        return votes.count { vote in PollRules.voteTargets(of: vote).contains { tags[$0].map { $0 != .poll } ?? false }
        }
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
                logger.warning(
                    "a membership change holds a key grant that does not open",
                    metadata: ["message": "\(message.id.shortHex)"])
            }
        }
        return grants
    }
}
