public import ParleyCore
import Logging
import ParleyCrypto
public import ParleyStore

/// The send path. Concurrent sends are committed together (`GroupCommit`): one store transaction
/// stores the batch (as sent), then one engine hop pushes it (several messages per datagram).
extension Node {
    /// Signs, stores (durably, before anything is sent) and pushes a message to every other member.
    /// The send hooks (`NodeConfiguration.sendHooks`) may rewrite or veto it first. It may return as
    /// soon as it is stored: the push follows, batches in the order they were stored (`GroupCommit`).
    public func send(chat: ChatID, tag: Tag, content: [UInt8], references: [MessageReference] = []) async throws
        -> StoredMessage
    {
        let outgoing = SendHooks.Outgoing(chat: chat, tag: tag, content: content, references: references)
        guard let didSend = configuration.sendHooks.didSend else { return try await checkAndQueue(outgoing) }
        do { return try await checkAndQueue(outgoing) } catch {
            await didSend(.failed(reason: String(describing: error)))
            throw error
        }
    }

    /// Checks membership, hooks and limits, then queues the message for the next batch.
    private func checkAndQueue(_ requested: SendHooks.Outgoing) async throws -> StoredMessage {
        let chat = requested.chat
        guard let membership = try store.membership(of: chat) else {
            throw NodeError.notFound("no chat \(chat.shortHex)")
        }
        guard membership.members.contains(me) else { throw NodeError.notAMember(chat) }
        var outgoing = requested
        if let willSend = configuration.sendHooks.willSend {
            switch await willSend(requested) {
            case let .send(changed):
                guard changed.chat == chat else {
                    throw NodeError.invalid("a send hook cannot move a message to another chat")
                }
                outgoing = changed
            case let .veto(reason): throw NodeError.vetoed(reason)
            }
        }
        if outgoing.tag == .membership {
            throw NodeError.invalid("membership changes are made with addMembers and removeMembers")
        }
        if outgoing.tag == .custom { try ContentKind.validateCustom(outgoing.content) }
        if membership.isKeyed { _ = try Self.sealingKey(of: membership) } // refused now rather than at commit
        return try await enqueue(
            chat: chat, tag: outgoing.tag, content: outgoing.content, references: outgoing.references,
            sealed: membership.isKeyed,
            recipients: membership.members)
    }

    /// Queues a checked draft for the next batch. A refused message never takes a sequence number.
    func enqueue(
        chat: ChatID, tag: Tag, content: [UInt8], references: [MessageReference], sealed: Bool, recipients: [PeerID],
        startsEpoch: EpochStart? = nil
    ) async throws -> StoredMessage {
        if sealed, content.count > SealedContent.maxPlaintextBytes {
            throw CoreError.tooLarge("message content", limit: SealedContent.maxPlaintextBytes, actual: content.count)
        }
        let draft = MessageDraft(
            chat: chat, author: me, sequence: 1, lamport: 1, timestampMillis: clock.wallMillis,
            tag: tag, content: content, references: references)
        try draft.validateLimits()
        let outgoing = OutgoingMessage(
            draft: draft, sealed: sealed, recipients: recipients.filter { $0 != me }, startsEpoch: startsEpoch)
        return try await outbox.submit(outgoing) { batch in await self.storeAndPush(batch) }
    }

    /// Numbers, signs and stores the batch in one transaction; pushing it is the follow-up, which
    /// runs while the next batch is stored (`GroupCommit`).
    private func storeAndPush(_ batch: [OutgoingMessage]) async -> GroupCommit<OutgoingMessage, StoredMessage>.Committed
    {
        var results = [Result<StoredMessage, any Error>?](repeating: nil, count: batch.count)
        var signed: [(index: Int, message: Message, recipients: [PeerID])] = []
        var grants: [MessageID: [EpochKey]] = [:]
        var unstoredChats = Set<ChatID>()
        // Sealed with the key current at commit, to the members current at commit: a change stored
        // since the send was checked (this node's own, or the creator's) must not leave a message
        // readable by someone it removed. The membership read is served from the store's cache.
        var current: [ChatID: (key: EpochKey, recipients: [PeerID])] = [:]
        for (index, outgoing) in batch.enumerated() {
            do {
                var draft = outgoing.draft
                var recipients = outgoing.recipients
                let sealing = outgoing.sealed ? try current[draft.chat] ?? currentSealing(draft.chat) : nil
                if let sealing {
                    current[draft.chat] = sealing
                    recipients = sealing.recipients
                }
                (draft.sequence, draft.lamport, draft.previous) = try chatState.reserve(
                    chat: draft.chat, author: me, store: store)
                if let key = sealing?.key {
                    draft.content = SealedContent.seal(
                        draft.content, with: key, chat: draft.chat, author: me, sequence: draft.sequence)
                }
                let message = try draft.chained()
                chatState.link(chat: draft.chat, to: message.id)
                if let start = outgoing.startsEpoch {
                    grants[message.id] = [start.key]
                    // The batch stores this change before what follows it: later messages of the chat in
                    // this batch are sealed for the epoch it starts, to the members it leaves.
                    current[draft.chat] = (start.key, start.members.filter { $0 != me })
                }
                signed.append((index, message, recipients))
            } catch {
                results[index] = .failure(error)
                unstoredChats.insert(outgoing.draft.chat) // a number may have been reserved for it
            }
        }
        Self.signHeads(&signed, identity: identity)
        let outcomes: [InsertOutcome]
        do {
            outcomes = try await store.insert(
                signed.map(\.message), grants: grants, receivedAtMillis: clock.wallMillis, ownAuthor: me, ownSent: true)
        } catch {
            outcomes = []
            for item in signed { results[item.index] = .failure(error) }
        }

        await signBeforeRefused(&signed, outcomes: outcomes)
        var stored: [(index: Int, row: StoredMessage)] = []
        var pushes: [(key: OutboundKey, frame: Frame)] = []
        for (item, outcome) in zip(signed, outcomes) {
            guard case let .inserted(row) = outcome else {
                results[item.index] = .failure(
                    NodeError.invalid("message \(item.message.id.shortHex) could not be stored: \(outcome)"))
                continue
            }
            stored.append((item.index, row))
            pushes += item.recipients.map { (.message(item.message.id, to: $0), .message(item.message.encoded)) }
        }
        if stored.count < signed.count {
            unstoredChats.formUnion(signed.map(\.message.chat))
        }
        // Numbers handed out to messages that were not stored are taken back (reloaded from the store),
        // only now that the batch's stored ones are in.
        for chat in unstoredChats { chatState.forget(chat: chat) }
        for (index, row) in stored {
            // The caller gets what it wrote, not the sealed form.
            results[index] = .success(
                StoredMessage(
                    message: row.message.opened(content: batch[index].draft.content), localNumber: row.localNumber,
                    receivedAtMillis: row.receivedAtMillis,
                    state: row.state, deliveredTo: row.deliveredTo))
        }
        let (storedIDs, frames) = (stored.map(\.row.id), pushes)
        return .init(results: results.map { $0 ?? .failure(GroupCommitError.noResult) }) {
            if let didSend = self.configuration.sendHooks.didSend {
                // Before the push, so no ack can be reported ahead of it.
                for id in storedIDs { await didSend(.sent(id)) }
            }
            // Stored as sent: nothing can fail between that commit and this push (frames wait for a session
            // if need be), and after a crash in between the restart pushes every undelivered own message.
            await self.pushReliably(frames)
        }
    }
}

extension Node {
    /// One signature per chat per batch: each chat's last message in the batch is signed, and vouches
    /// for the ones before it through their chain links (a batch of one is signed at once). Also signed:
    /// a message whose successor in the batch failed to be made (the successor links to nothing), or
    /// goes to other recipients (after an own membership change: a removed member gets no more of the
    /// chain, so what it did get must end at a head). And no member is pushed more than
    /// `maxChainedRun` chained messages in a row, across chats: a receiver acknowledges nothing of a
    /// run before its head, so a head must fit in the smallest push window.
    static func signHeads(_ batch: inout [(index: Int, message: Message, recipients: [PeerID])], identity: Identity) {
        var heads = Set<Int>()
        // Per chat, the next message in the batch: what it names, and who it goes to.
        var next: [ChatID: (named: MessageID?, recipients: [PeerID])] = [:]
        for position in batch.indices.reversed() {
            let (message, recipients) = (batch[position].message, batch[position].recipients)
            if let after = next[message.chat], after.named == message.id, after.recipients == recipients {
            } else {
                heads.insert(position)
            }
            next[message.chat] = (message.previous, recipients)
        }
        var openRuns: [ChatID: Int] = [:] // per chat, its last message in the batch not yet covered by a head
        var chainedInARow = 0
        for position in batch.indices {
            let chat = batch[position].message.chat
            if heads.contains(position) {
                openRuns[chat] = nil
                continue
            }
            openRuns[chat] = position
            chainedInARow += 1
            if chainedInARow == maxChainedRun {
                heads.formUnion(openRuns.values)
                openRuns = [:]
                chainedInARow = 0
            }
        }
        for position in heads { signHead(at: position, in: &batch, identity: identity) }
    }

    static func signHead(
        at position: Int, in batch: inout [(index: Int, message: Message, recipients: [PeerID])], identity: Identity
    ) {
        // Made by this node from its own draft: signing cannot fail.
        if !batch[position].message.isHead, let head = try? batch[position].message.signedAsHead(by: identity) {
            batch[position].message = head
        }
    }

    /// The longest run of messages one signature covers: `ReliableQueue`'s smallest push window.
    static let maxChainedRun = ReliableQueue<OutboundKey, Frame>.Configuration().minimumWindow
}

/// A validated draft waiting for its batch: numbered and signed only when the batch commits, so
/// sequence numbers follow store order.
struct OutgoingMessage: Sendable {
    /// Its content is the plaintext; sealed when the batch commits, once the sequence is known.
    let draft: MessageDraft
    let sealed: Bool
    let recipients: [PeerID]
    /// For an own membership change: the epoch it starts.
    let startsEpoch: EpochStart?
}

/// The epoch an own membership change starts: its key (granted to this node, stored with the change)
/// and its members.
struct EpochStart: Sendable {
    let key: EpochKey
    let members: [PeerID]
}

extension Node {
    /// A message the store refused leaves the stored ones before it in its chat with nothing to vouch
    /// for them: the last of those is signed now, its stored encoding replaced (the id stays), and it
    /// is pushed signed. Rare: the store refuses an own message only when the chat changed under it.
    fileprivate func signBeforeRefused(
        _ batch: inout [(index: Int, message: Message, recipients: [PeerID])], outcomes: [InsertOutcome]
    ) async {
        guard outcomes.count == batch.count, outcomes.contains(where: { $0.storedMessage == nil }) else { return }
        var lastStored: [ChatID: Int] = [:]
        var resigned: [Message] = []
        for position in batch.indices {
            let chat = batch[position].message.chat
            if outcomes[position].storedMessage != nil {
                lastStored[chat] = position
            } else if let before = lastStored.removeValue(forKey: chat), !batch[before].message.isHead {
                Self.signHead(at: before, in: &batch, identity: identity)
                resigned.append(batch[before].message)
            }
        }
        do { try await store.replaceEncodings(resigned) } catch {
            logger.warning(
                "could not store the signed form of a message before a refused one", metadata: ["error": "\(error)"])
        }
    }

    /// The current epoch's key and the other current members, for a sealed message.
    fileprivate func currentSealing(_ chat: ChatID) throws -> (key: EpochKey, recipients: [PeerID]) {
        guard let membership = try store.membership(of: chat), membership.members.contains(me) else {
            throw NodeError.notAMember(chat)
        }
        return (try Self.sealingKey(of: membership), membership.members.filter { $0 != me })
    }

    /// The current epoch's key. Without it, the creator's last change listed this node without a
    /// grant that opens.
    fileprivate static func sealingKey(of membership: ChatMembership) throws -> EpochKey {
        guard let key = membership.sealingKey else {
            throw NodeError.invalid(
                "this node holds no key for the current epoch of chat \(membership.chat.shortHex): the creator's last change gave it none"
            )
        }
        return key
    }
}
