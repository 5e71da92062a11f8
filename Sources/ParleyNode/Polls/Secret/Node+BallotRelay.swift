import Logging
import ParleyCore
import ParleyCrypto
import ParleyStore

/// The hops of a secret ballot (docs/BALLOTS.md §4). The first relay knows who sent an envelope but
/// cannot open it; it holds it until the poll's closing time (as its voter asks) and then passes it
/// to the publisher named on it, so every publisher gets its envelopes at once. The publisher opens
/// it, learns the ballot but not who cast it, and keeps it (in the poll's local data, so a restart
/// loses nothing). At the closing time every publisher hands what it holds to the poll's creator,
/// which publishes every ballot in one batch; one that reaches it later goes out only in the late
/// batch at the close, with at least one other, never alone.
extension Node {
    func receiveBallotRelay(publisher: PeerID, holdMillis: UInt32, sealed: [UInt8], from sender: PeerID) async {
        guard sender != me else { return }
        // Only between members of one chat, and a budget per sender: a relay never sends to an
        // address it did not already talk to, and one envelope in makes at most one out. No voter
        // names itself as publisher (its envelope goes through another member).
        let shared =
            (try? store.memberships().values.contains {
                $0.contains(me) && $0.contains(sender) && $0.contains(publisher)
            }) ?? false
        guard shared, publisher != sender,
            secretBallots.admitRelay(from: sender, toMe: publisher == me, wallMillis: clock.wallMillis)
        else {
            await engine.reject(.ballotRelayRefused)
            return
        }
        if publisher == me {
            // Opened and checked by `checkEnvelopes`, so that chat traffic keeps flowing meanwhile.
            let inbox = transport.inbound
            inbox.offPathWorkBegins()
            do { try envelopeChecks.enqueue(sealed, from: sender, wallMillis: clock.wallMillis) } catch {
                inbox.offPathWorkEnds()
                await engine.reject(.ballotRelayRefused)
            }
        } else {
            // Held until the closing time its voter asks for (the relay cannot open the envelope to
            // learn it): every envelope then reaches its publisher at once, so neither an arrival time
            // nor a voter's presence beats or receipts beside it say who sent which.
            secretBallots.schedule(
                .init(
                    due: clock.now + .milliseconds(Int64(holdMillis)), sender: sender, publisher: publisher,
                    sealed: sealed))
        }
    }

    /// The task that opens and checks envelopes addressed to this node, one at a time, beside the
    /// receive loop: a ring verification at 256 electors takes about 50 ms of a core. Envelopes from
    /// senders over their verification budget wait until no other envelope does (`EnvelopeChecks`).
    func checkEnvelopes() async {
        let inbox = transport.inbound
        for await _ in envelopeChecks.arrivals {
            switch envelopeChecks.next(wallMillis: clock.wallMillis) {
            case .check(let envelope): await acceptEnvelope(envelope.sealed, from: envelope.sender)
            case .refuse: await engine.reject(.ballotRelayRefused)
            case nil: break
            }
            inbox.offPathWorkEnds()
        }
    }

    /// Publisher (or the creator, from a publisher): opens the envelope, checks the ballot, and holds
    /// it, one per linking tag, until it is handed on or published. Everything that can be refused
    /// without the ring is refused first (the poll, the envelope's size, the ballot's shape, a ballot
    /// already held or already published), and a failed ring check counts against the sender's
    /// budget (`EnvelopeChecks`). Publishers send theirs again until they see them published, and a
    /// needless retry must neither cost a verification nor be published a second time, alone.
    private func acceptEnvelope(_ sealed: [UInt8], from sender: PeerID) async {
        do {
            let opened = try identity.openSealed(sealed)
            let envelope = try BallotEnvelope(decoding: opened)
            let ballot = try SecretBallot(decoding: envelope.ballot)
            let (poll, secret) = try secretPoll(ballot.poll, in: envelope.chat)
            let members = try store.members(of: envelope.chat) ?? []
            guard members.contains(me) else { throw NodeError.notAMember(envelope.chat) }
            // Held for a creator that left, a ballot could never be handed on.
            guard members.contains(poll.author) else {
                throw NodeError.invalid("the poll's creator is no longer a member")
            }
            guard opened.count == secret.envelopeBytes else {
                throw NodeError.invalid("the envelope is not the poll's envelope size")
            }
            try ballot.checkShape(poll: ballot.poll, secret: secret)
            guard try !isClosed(poll) else { throw NodeError.invalid("the poll is closed") }
            // Keyed by linking tag: an elector cannot make this node hold more than one ballot of its own.
            let key = LocalDataKey.heldBallotPrefix + ballot.linkingTag.hex
            guard try store.localData(message: ballot.poll, key: key) == nil, try !isPublished(ballot.encoded, on: poll)
            else { return }
            do { try ballot.verify(chat: envelope.chat, poll: ballot.poll, secret: secret) } catch {
                envelopeChecks.noteRingVerification(from: sender, failed: true, wallMillis: clock.wallMillis)
                throw error
            }
            envelopeChecks.noteRingVerification(from: sender, failed: false, wallMillis: clock.wallMillis)
            try await store.setLocalData(message: ballot.poll, key: key, value: Hex.encode(ballot.encoded))
            // The creator's batch has a timer of its own (`scheduleSecretPoll`), which fires whether or
            // not a ballot arrived before it; another publisher hands on at the closing time.
            if poll.author != me {
                secretBallots.scheduleRelease(poll: ballot.poll, chat: envelope.chat, atMillis: secret.closesAtMillis)
            }
        } catch {
            logger.debug("refused a ballot envelope", metadata: ["error": "\(error)"])
            await engine.reject(.badBallot)
        }
    }

    /// The secret poll an envelope names, decoded once per poll: a poll of 256 electors is 16 KB
    /// holding 256 keys to check, which every envelope would otherwise pay for.
    private func secretPoll(_ id: MessageID, in chat: ChatID) throws -> (message: Message, secret: SecretPoll) {
        if let known = envelopeChecks.poll(id), known.message.chat == chat { return known }
        let stored = try requirePoll(id, in: chat)
        guard let secret = try Poll(stored.message).secret else { throw NodeError.invalid("not a secret poll") }
        envelopeChecks.remember(stored.message, secret)
        return (stored.message, secret)
    }

    /// Whether the poll's creator published a ballot with exactly these bytes: a store lookup, no tally.
    func isPublished(_ ballot: [UInt8], on poll: Message) throws -> Bool {
        try publishedBallots(on: poll).contains(ballot)
    }

    /// The bytes of every ballot the poll's creator published, read once for any number of lookups.
    private func publishedBallots(on poll: Message) throws -> Set<[UInt8]> {
        let published = try store.messages(
            matching: MessageCriteria(chat: poll.chat, tag: .pollSecretBallot, referencing: poll.id))
        return Set(published.lazy.filter { $0.message.author == poll.author }.map(\.message.content))
    }

    /// Forgets, from `held` (by local data key) and the store, each ballot the poll's creator already
    /// published: a publisher stops handing it over, and the creator does not count it as late.
    private func forgetPublished(_ held: inout [String: [UInt8]], on poll: Message) async throws {
        let published = try publishedBallots(on: poll)
        for (key, ballot) in held where published.contains(ballot) {
            _ = try await store.deleteLocalData(message: poll.id, key: key)
            held[key] = nil
        }
    }

    /// Forgets every ballot this node holds for `poll`: their voters' retries take another way.
    private func dropHeldBallots(of poll: MessageID, keys: some Sequence<String>) async throws {
        for key in keys { _ = try await store.deleteLocalData(message: poll, key: key) }
    }

    /// The ballots this node holds for `poll`, by local data key.
    func heldBallots(of poll: MessageID) throws -> [String: String] {
        try store.allLocalData(message: poll).filter { $0.key.hasPrefix(LocalDataKey.heldBallotPrefix) }
    }

    /// Timer work: envelopes whose hold is over, held ballots whose time has come (the creator's
    /// batch among them), and this node's own ballots that should have been published by now.
    func runSecretBallotTimers() async {
        for forward in secretBallots.takeDueForwards(now: clock.now) {
            // The publisher may have left (or been removed) during the delay: it must not get the envelope.
            let stillShared =
                (try? store.memberships().values.contains { $0.contains(me) && $0.contains(forward.publisher) })
                ?? false
            guard stillShared else {
                logger.info(
                    "dropped a ballot envelope: its publisher shares no chat with this node any more",
                    metadata: [
                        "publisher": "\(forward.publisher.shortHex)"
                    ])
                continue
            }
            await transmit(
                [.ballotRelay(publisher: forward.publisher, holdMillis: 0, sealed: forward.sealed)],
                to: forward.publisher)
        }
        let now = clock.wallMillis
        for (poll, chat, until) in secretBallots.takeDueReveals(atMillis: now) {
            do {
                guard let stored = try store.message(poll), stored.message.chat == chat else { continue }
                try await revealLeftOutBallots(on: stored.message, waitingUntil: until)
            } catch {
                logger.warning("revealing left-out ballots failed; retrying", metadata: ["error": "\(error)"])
                secretBallots.scheduleReveal(
                    poll: poll, chat: chat, atMillis: now.adding(configuration.syncInterval), untilMillis: until)
            }
        }
        let (releases, checks) = secretBallots.takeDue(atMillis: now)
        for (poll, chat) in releases {
            do { try await releaseHeldBallots(poll: poll, chat: chat) } catch {
                logger.warning("releasing held ballots failed; retrying", metadata: ["error": "\(error)"])
                secretBallots.scheduleRelease(
                    poll: poll, chat: chat, atMillis: now.adding(configuration.ballotRetryAfter))
            }
        }
        for (poll, chat) in checks {
            do { try await checkOwnBallot(poll: poll, chat: chat) } catch {
                logger.warning("re-sending a secret ballot failed; retrying", metadata: ["error": "\(error)"])
                secretBallots.scheduleCheck(
                    poll: poll, chat: chat, atMillis: now.adding(configuration.ballotRetryAfter))
            }
        }
    }

    /// The creator publishes its batch (`publishBatch`). Another publisher seals each ballot it holds
    /// to the creator and sends it there directly, and sends again every retry interval until it sees
    /// it published by the creator: the creator may be away at the closing time. Held ballots of a
    /// poll that closed, or of a chat this node left, are dropped: their voters' retries take another
    /// way. A crash in between sends the same bytes again, which the creator drops (already
    /// published) or counts once.
    private func releaseHeldBallots(poll: MessageID, chat: ChatID) async throws {
        let stored = try requirePoll(poll, in: chat)
        if stored.message.author == me { return try await publishBatch(of: stored.message, late: false) }
        var held = try heldBallots(of: poll).mapValues(Hex.decode)
        guard !held.isEmpty else { return }
        guard let secret = try await stillHandedOn(stored.message, held: held.keys) else { return }
        let creator = stored.message.author
        try await forgetPublished(&held, on: stored.message)
        guard !held.isEmpty else { return }
        try await commit(to: held.values, on: stored.message, secret: secret)
        let sealTo = try creator.agreementKey()
        let frames = try held.values.map { ballot -> Frame in
            let envelope = try BallotEnvelope(chat: chat, ballot: ballot).encoded(size: secret.envelopeBytes)
            return .ballotRelay(publisher: creator, holdMillis: 0, sealed: try sealTo.seal(envelope))
        }
        await transmit(frames, to: creator)
        secretBallots.scheduleRelease(
            poll: poll, chat: chat, atMillis: clock.wallMillis.adding(configuration.ballotRetryAfter))
    }

    /// The poll's secret part while its held ballots still have somewhere to go; otherwise nil, with
    /// the held ballots dropped: the poll closed, this node left, or the creator left the chat (it
    /// would neither publish nor close, and sending to it every retry interval would last for good).
    private func stillHandedOn(_ poll: Message, held: some Collection<String>) async throws -> SecretPoll? {
        let members = try store.members(of: poll.chat) ?? []
        guard let secret = try Poll(poll).secret, members.contains(me), try !isClosed(poll) else {
            try await dropHeldBallots(of: poll.id, keys: held)
            return nil
        }
        guard members.contains(poll.author) else {
            try await dropHeldBallots(of: poll.id, keys: held)
            try await forgetCommitment(on: poll.id)
            logger.info(
                "dropped held secret ballots: the poll's creator is no longer a member",
                metadata: [
                    "poll": "\(poll.id.shortHex)", "creator": "\(poll.author.shortHex)", "ballots": "\(held.count)",
                ])
            return nil
        }
        return secret
    }

    /// The creator's batches. The first, at the publishing time, holds every ballot the creator holds
    /// then, however few. Ballots that reach it afterwards (a retry, a publisher that was away) wait
    /// for the late batch at the close (`late`), which goes out only with at least
    /// `SecretBallotDesk.minLateBatch` ballots: a lone ballot published after the batch would be linked
    /// to the voter by whoever passed it on late, so it is dropped, and its voter's node shows "not
    /// counted". The mark that the first batch is out is local data, so a restart keeps it.
    func publishBatch(of poll: Message, late: Bool) async throws {
        let mark = try store.localData(message: poll.id, key: LocalDataKey.secretBatchPublished)
        // "pending": a crash came while the first batch went out; what it still holds was in it.
        // "latePending": the same in the late batch, which then goes out whatever is left of it.
        let batchOut = mark != nil && mark != Self.batchPending
        let lateResumed = mark == Self.lateBatchPending
        guard late || !batchOut else { return }
        var held = try heldBallots(of: poll.id).mapValues(Hex.decode)
        if !held.isEmpty, try await stillHandedOn(poll, held: held.keys) == nil { return }
        // A copy of one already out (a crash between sending and forgetting) is no late ballot.
        try await forgetPublished(&held, on: poll)
        if batchOut, !lateResumed, held.count < SecretBallotDesk.minLateBatch {
            try await dropHeldBallots(of: poll.id, keys: held.keys)
            if !held.isEmpty {
                logger.info(
                    "dropped secret ballots that reached this node after its batch: too few to go out together",
                    metadata: [
                        "poll": "\(poll.id.shortHex)", "ballots": "\(held.count)",
                    ])
            }
            return
        }
        try await store.setLocalData(
            message: poll.id, key: LocalDataKey.secretBatchPublished,
            value: batchOut ? Self.lateBatchPending : Self.batchPending)
        let reference = MessageReference(id: poll.id, tag: .pollSecretBallot)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (key, bytes) in held {
                group.addTask {
                    _ = try await self.send(
                        chat: poll.chat, tag: .pollSecretBallot, content: bytes, references: [reference])
                    _ = try await self.store.deleteLocalData(message: poll.id, key: key)
                }
            }
            try await group.waitForAll()
        }
        try await store.setLocalData(
            message: poll.id, key: LocalDataKey.secretBatchPublished,
            value: batchOut ? Self.lateBatchDone : Self.batchDone)
        logger.info(
            "published a batch of secret ballots",
            metadata: ["poll": "\(poll.id.shortHex)", "ballots": "\(held.count)", "late": "\(late)"])
    }

    /// `secretBatchPublished` while the first batch goes out, once it is out, and the same for the late batch.
    static let batchPending = "pending"
    static let batchDone = "done"
    static let lateBatchPending = "latePending"
    static let lateBatchDone = "lateDone"

    /// Voter: if this node's ballot is not in the creator's batch and the poll is not closed, the same
    /// bytes go out again along paths chosen afresh, at most `ballotRetries` times. The creator holds
    /// what comes this late for its late batch at the close, published only with another ballot.
    private func checkOwnBallot(poll: MessageID, chat: ChatID) async throws {
        let stored = try requirePoll(poll, in: chat)
        guard let secret = try Poll(stored.message).secret, try !isClosed(stored.message),
            let ballot = try store.localData(message: poll, key: LocalDataKey.secretBallot).map(Hex.decode),
            try !isPublished(ballot, on: stored.message),
            secretBallots.takeRetry(for: poll, limit: configuration.ballotRetries)
        else { return }
        secretBallots.scheduleCheck(
            poll: poll, chat: chat, atMillis: clock.wallMillis.adding(configuration.ballotRetryAfter))
        let paths = try await choosePaths(
            chat: chat, creator: stored.message.author, avoiding: secretBallots.relaysUsed(for: poll))
        try await relay(ballot, chat: chat, poll: poll, secret: secret, along: paths)
        logger.info("sent a secret ballot again: not published yet", metadata: ["poll": "\(poll.shortHex)"])
    }

    /// At start: the timers of every open secret poll this node created, voted on or holds ballots
    /// for. A creator that was away past its publishing time gives publishers a publishing delay to
    /// send their ballots again before it publishes (its first batch, unless that is out already),
    /// and closes a release window from now.
    func loadSecretBallots(_ poll: StoredMessage, _ secret: SecretPoll) async throws {
        let message = poll.message
        let held = try heldBallots(of: message.id)
        guard try !isClosed(message) else {
            try await dropHeldBallots(of: message.id, keys: held.keys)
            try await forgetSecretChoice(on: message)
            try await revealLeftOutBallots(on: message)
            return
        }
        scheduleSecretPoll(message, secret)
        let now = clock.wallMillis
        if message.author == me,
            try store.localData(message: message.id, key: LocalDataKey.secretBatchPublished) == Self.batchPending
        {
            // The first batch was going out when this node stopped: the rest of it goes out now.
            secretBallots.scheduleRelease(poll: message.id, chat: message.chat, atMillis: now)
            pollDeadlines.add(
                poll: message.id, chat: message.chat, atMillis: now.adding(configuration.ballotReleaseWindow))
        } else if message.author == me, now >= publishingTime(of: secret) {
            secretBallots.scheduleRelease(
                poll: message.id, chat: message.chat, atMillis: now.adding(configuration.ballotPublishDelay))
            pollDeadlines.add(
                poll: message.id, chat: message.chat, atMillis: now.adding(configuration.ballotReleaseWindow))
        } else if message.author != me, !held.isEmpty {
            // (The creator's own batch was scheduled for the publishing time above.)
            secretBallots.scheduleRelease(poll: message.id, chat: message.chat, atMillis: secret.closesAtMillis)
        }
    }
}
