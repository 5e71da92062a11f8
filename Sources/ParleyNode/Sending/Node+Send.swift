public import ParleyCore
public import ParleyStore

/// The send path. Concurrent sends are committed together (`GroupCommit`): one store transaction
/// stores the batch, one engine hop pushes it (several messages per datagram), one transaction marks
/// it sent.
extension Node {
    /// Signs, stores (durably, before anything is sent) and pushes a message to every other member.
    /// The send hooks (`NodeConfiguration.sendHooks`) may rewrite or veto it first.
    public func send(chat: ChatID, tag: Tag, content: [UInt8], references: [MessageReference] = []) async throws -> StoredMessage {
        let outgoing = SendHooks.Outgoing(chat: chat, tag: tag, content: content, references: references)
        guard let didSend = configuration.sendHooks.didSend else { return try await submit(outgoing) }
        do { return try await submit(outgoing) } catch {
            await didSend(.failed(reason: String(describing: error)))
            throw error
        }
    }

    private func submit(_ requested: SendHooks.Outgoing) async throws -> StoredMessage {
        let chat = requested.chat
        guard let members = try store.members(of: chat) else { throw NodeError.notFound("no chat \(chat.shortHex)") }
        guard members.contains(me) else { throw NodeError.notAMember(chat) }
        var outgoing = requested
        if let willSend = configuration.sendHooks.willSend {
            switch await willSend(requested) {
            case let .send(changed):
                guard changed.chat == chat else { throw NodeError.invalid("a send hook cannot move a message to another chat") }
                outgoing = changed
            case let .veto(reason): throw NodeError.vetoed(reason)
            }
        }
        if outgoing.tag == .custom { try ContentKind.validateCustom(outgoing.content) }
        let draft = MessageDraft(
            chat: chat, author: me, sequence: 1, lamport: 1, timestampMillis: clock.wallMillis,
            tag: outgoing.tag, content: outgoing.content, references: outgoing.references)
        try draft.validateLimits() // before queueing, so a refused message never takes a sequence number
        return try await outbox.submit(OutgoingMessage(draft: draft, recipients: members.filter { $0 != me })) { batch in
            await self.commit(batch)
        }
    }

    /// Numbers, signs and stores the batch in one transaction, pushes it, then marks it sent.
    private func commit(_ batch: [OutgoingMessage]) async -> [Result<StoredMessage, any Error>] {
        var results = [Result<StoredMessage, any Error>?](repeating: nil, count: batch.count)
        var signed: [(index: Int, message: Message, recipients: [PeerID])] = []
        for (index, outgoing) in batch.enumerated() {
            do {
                var draft = outgoing.draft
                (draft.sequence, draft.lamport) = try chatState.reserve(chat: draft.chat, author: me, store: store)
                signed.append((index, try draft.signed(by: identity), outgoing.recipients))
            } catch {
                results[index] = .failure(error)
            }
        }
        let outcomes: [InsertOutcome]
        do {
            outcomes = try await store.insert(signed.map(\.message), receivedAtMillis: clock.wallMillis, ownAuthor: me)
        } catch {
            outcomes = []
            for item in signed { results[item.index] = .failure(error) }
        }

        var stored: [(index: Int, row: StoredMessage)] = []
        var pushes: [(key: OutboundKey, frame: Frame)] = []
        for (item, outcome) in zip(signed, outcomes) {
            guard case let .inserted(row) = outcome else {
                results[item.index] = .failure(NodeError.invalid("message \(item.message.id.shortHex) could not be stored: \(outcome)"))
                continue
            }
            stored.append((item.index, row))
            pushes += item.recipients.map { (.message(item.message.id, to: $0), .message(item.message.encoded)) }
        }
        if stored.count < signed.count {
            // Numbers handed out to messages that were not stored are taken back (reloaded from the store).
            for chat in Set(signed.map(\.message.chat)) { chatState.forget(chat: chat) }
        }
        if let didSend = configuration.sendHooks.didSend {
            // Before the push, so no ack can be reported ahead of it.
            for (_, row) in stored { await didSend(.sent(row.id)) }
        }
        await pushReliably(pushes)
        // If this fails the messages stay pending, and are pushed again after a restart.
        let settled = (try? await store.markSent(stored.map(\.row.id))) ?? [:]
        for (index, row) in stored {
            let update = settled[row.id]
            results[index] = .success(StoredMessage(
                message: row.message, localNumber: row.localNumber, receivedAtMillis: row.receivedAtMillis,
                state: update?.state ?? row.state, deliveredTo: update?.deliveredTo ?? row.deliveredTo))
        }
        return results.map { $0 ?? .failure(GroupCommitError.noResult) }
    }
}

/// A validated draft waiting for its batch: numbered and signed only when the batch commits, so
/// sequence numbers follow store order.
struct OutgoingMessage: Sendable {
    let draft: MessageDraft
    let recipients: [PeerID]
}
