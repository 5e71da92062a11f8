internal import Foundation
internal import GRDB
public import ParleyCore
public import ParleyCrypto

extension MessageStore {
    /// Stores a batch of verified messages in ONE transaction and says what happened to each, in order.
    ///
    /// Duplicates (same id) are dropped; so is a fork (same chat/author/sequence, another id), the
    /// first one kept. Each stored message gets the next local number of its chat; sync heads move forward.
    /// Signatures are the caller's job: this stores what it is given, except that a covered head whose
    /// voucher is refused is stored signed if its own signature verifies (`vouching`).
    ///
    /// `vouching` says which messages are stored only if the message vouching for them is: one whose
    /// voucher is refused is refused too (`unvouched`), so no run is stored without a head.
    ///
    /// In keyed chats a message counts only if its author was a member in the epoch it was sealed
    /// for. "Membership" messages go first, so a batch that carries a change and messages of the
    /// epoch it starts stores both. `grants` are the keys this node opened from membership changes
    /// in the batch; they are kept only for changes that apply (written by the chat's creator).
    ///
    /// Own messages are stored `pending`, or with `ownSent`, `sent` (`delivered` in a chat of one): the
    /// send path pushes them right after this commit, and a restart pushes again every own message
    /// not yet delivered, so nothing is lost if it stops in between.
    public func insert(
        _ messages: [Message], grants: [MessageID: [EpochKey]] = [:], receivedAtMillis: Int64, ownAuthor: PeerID,
        ownSent: Bool = false,
        vouching: Vouching = .none
    ) async throws(StoreError) -> [InsertOutcome] {
        if messages.isEmpty { return [] }
        let body: @Sendable (Database) throws -> [InsertOutcome] = { db in
            var batch = InsertBatch(
                memberships: membershipCache, positions: committedPositions, vouching: vouching, messages: messages)
            var outcomes = [InsertOutcome](repeating: .duplicate, count: messages.count)
            let order =
                messages.indices.filter { messages[$0].tag == .membership }
                + messages.indices.filter { messages[$0].tag != .membership }
            for index in order {
                var message = messages[index]
                // Changes are applied first, before what vouches for them is looked at: the messages
                // sealed for the epoch a change starts are only checkable after it. A message no other
                // vouched for stands on its own, and its insert checks it.
                if message.tag != .membership, batch.hasVoucher(message) {
                    switch try batch.verdict(of: message, db) {
                    case let .stands(form): message = form
                    case .refused where try batch.refusal(of: message, db) == nil:
                        outcomes[index] = .unvouched
                        continue
                    case .refused: break // refused on its own account: the insert says why
                    }
                }
                outcomes[index] = try batch.insert(
                    message, grants: grants[message.id] ?? [], db: db, receivedAtMillis: receivedAtMillis,
                    ownAuthor: ownAuthor, ownSent: ownSent)
                batch.settle(message, outcomes[index])
            }
            try batch.saveHeads(db)
            batch.keepPositions(db)
            awaitingAcks.update(batch.awaitingAcks, in: db)
            recentlyStored.add(batch.inserted, in: db)
            chatsWithDeletions.add(batch.deletingChats, in: db)
            return outcomes
        }
        let context = "inserting \(messages.count) message(s)"
        let keeps = !messages.contains { $0.tag == .membership }
        let outcomes: [InsertOutcome]
        do {
            outcomes =
                messages.count <= Self.maxInsertOnCallerThread && queuedWrites.isIdle
                ? try writeNow(context, keepsMemberships: keeps, body)
                : try await write(context, keepsMemberships: keeps, body)
        } catch {
            // The transaction rolled back; if a stale position made it fail, the next insert reads the store.
            committedPositions.forget()
            throw error
        }
        arrivalHub.publish(outcomes)
        return outcomes
    }
}

extension MessageStore {
    /// Stores another encoding of messages already stored under the same id: the signed form of a
    /// chained own message (the id hashes the body, which does not change). Others are ignored.
    public func replaceEncodings(_ messages: [Message]) async throws(StoreError) {
        guard !messages.isEmpty else { return }
        try await write("storing the signed form of \(messages.count) message(s)", keepsMemberships: true) { db in
            let update = try db.cachedStatement(sql: "UPDATE messages SET encoded = ? WHERE id = ?")
            for message in messages { try update.execute(arguments: [Data(message.encoded), message.id.blob]) }
        }
    }

    /// Live messages come alone or in small groups; bursts go to the writer queue (so do small
    /// batches while it is busy, rather than blocking their thread behind a burst).
    public static let maxInsertOnCallerThread = 8
}
