import Logging
import ParleyCore
import ParleyCrypto
import ParleyStore

/// The two hops of a secret ballot (docs/BALLOTS.md §4). The first relay knows who sent an envelope
/// but cannot open it; it waits a random time and passes it to the publisher named on it. The
/// publisher opens it, learns the ballot but not who cast it, keeps it (in the poll's local data,
/// so a restart loses nothing) and publishes every ballot it holds at the poll's closing time.
extension Node {
    func receiveBallotRelay(publisher: PeerID, maxDelayMillis: UInt32, sealed: [UInt8], from sender: PeerID) async {
        guard sender != me else { return }
        // Only between members of one chat, and a budget per sender: a relay never sends to an
        // address it did not already talk to, and one envelope in makes at most one out.
        let shared = (try? store.memberships().values.contains { $0.contains(me) && $0.contains(sender) && $0.contains(publisher) }) ?? false
        guard shared, secretBallots.admitRelay(from: sender, wallMillis: clock.wallMillis) else {
            await engine.reject(.ballotRelayRefused)
            return
        }
        if publisher == me {
            await acceptEnvelope(sealed)
        } else {
            // The voter bounds the delay so the ballot reaches the publisher before the closing time.
            let delay = Duration.milliseconds(Int64.random(in: 0...min(Int64(maxDelayMillis), max(0, configuration.ballotMixDelay.millis))))
            secretBallots.schedule(.init(due: clock.now + delay, publisher: publisher, sealed: sealed))
        }
    }

    /// Publisher: opens the envelope, checks the ballot, and holds it until the closing time (or
    /// publishes it at once if that has passed and the creator has not closed the poll).
    private func acceptEnvelope(_ sealed: [UInt8]) async {
        do {
            let envelope = try BallotEnvelope(decoding: identity.openSealed(sealed))
            let ballot = try SecretBallot(decoding: envelope.ballot)
            let stored = try requirePoll(ballot.poll, in: envelope.chat)
            guard let secret = try Poll(stored.message).secret else { throw NodeError.invalid("not a secret poll") }
            try ballot.verify(chat: envelope.chat, poll: ballot.poll, secret: secret)
            guard try pollSnapshot(chat: envelope.chat, poll: ballot.poll).phase != .closed else { throw NodeError.invalid("closed") }
            try await store.setLocalData(
                message: ballot.poll, key: LocalDataKey.heldBallotPrefix + ballot.id.hex, value: Hex.encode(ballot.encoded))
            secretBallots.scheduleRelease(poll: ballot.poll, chat: envelope.chat, atMillis: secret.closesAtMillis)
        } catch {
            logger.debug("refused a ballot envelope", metadata: ["error": "\(error)"])
            await engine.reject(.badBallot)
        }
    }

    /// Timer work: envelopes whose delay is over, held ballots whose poll reached its closing time,
    /// and this node's own ballots that should have been published by now.
    func runSecretBallotTimers() async {
        for forward in secretBallots.takeDueForwards(now: clock.now) {
            await transmit([.ballotRelay(publisher: forward.publisher, maxDelayMillis: 0, sealed: forward.sealed)], to: forward.publisher)
        }
        let now = clock.wallMillis
        let (releases, checks) = secretBallots.takeDue(atMillis: now)
        for (poll, chat) in releases {
            do { try await releaseHeldBallots(poll: poll, chat: chat) } catch {
                logger.warning("releasing held ballots failed; retrying", metadata: ["error": "\(error)"])
                secretBallots.scheduleRelease(poll: poll, chat: chat, atMillis: now + configuration.ballotRetryAfter.millis)
            }
        }
        for (poll, chat) in checks {
            do { try await checkOwnBallot(poll: poll, chat: chat) } catch {
                logger.warning("re-sending a secret ballot failed; retrying", metadata: ["error": "\(error)"])
                secretBallots.scheduleCheck(poll: poll, chat: chat, atMillis: now + configuration.ballotRetryAfter.millis)
            }
        }
    }

    /// Publishes every ballot held for `poll`, in one batch, then forgets them. A crash between the
    /// two publishes the same bytes again: same linking tag, same choice, counted once.
    private func releaseHeldBallots(poll: MessageID, chat: ChatID) async throws {
        let held = try store.allLocalData(message: poll).filter { $0.key.hasPrefix(LocalDataKey.heldBallotPrefix) }
        guard !held.isEmpty else { return }
        if try pollSnapshot(chat: chat, poll: poll).phase != .closed {
            let reference = MessageReference(id: poll, tag: .pollSecretBallot)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for ballot in held.values {
                    let bytes = try Hex.decode(ballot)
                    group.addTask { _ = try await self.send(chat: chat, tag: .pollSecretBallot, content: bytes, references: [reference]) }
                }
                try await group.waitForAll()
            }
            logger.info("published held secret ballots", metadata: ["poll": "\(poll.shortHex)", "ballots": "\(held.count)"])
        }
        for key in held.keys { _ = try await store.deleteLocalData(message: poll, key: key) }
    }

    /// Voter: if this node's ballot is not published yet and the poll is not closed, the same bytes
    /// go out again through two members chosen afresh (relays publish at once after the closing time).
    private func checkOwnBallot(poll: MessageID, chat: ChatID) async throws {
        let snapshot = try pollSnapshot(chat: chat, poll: poll)
        guard snapshot.secret?.ownBallot == .relayed, snapshot.phase != .closed,
              let hex = try store.localData(message: poll, key: LocalDataKey.secretBallot)
        else { return }
        secretBallots.scheduleCheck(poll: poll, chat: chat, atMillis: clock.wallMillis + configuration.ballotRetryAfter.millis)
        let relays = try await chooseRelays(chat: chat, avoiding: secretBallots.relaysUsed(for: poll))
        try await relay(Hex.decode(hex), chat: chat, poll: poll, through: relays)
        logger.info("sent a secret ballot again: not published yet", metadata: ["poll": "\(poll.shortHex)"])
    }

    /// At start: the timers of every secret poll this node created, voted on or holds ballots for.
    func loadSecretBallots(_ poll: StoredMessage, _ secret: SecretPoll) throws {
        let message = poll.message
        let local = try store.allLocalData(message: message.id)
        if local.keys.contains(where: { $0.hasPrefix(LocalDataKey.heldBallotPrefix) }) {
            secretBallots.scheduleRelease(poll: message.id, chat: message.chat, atMillis: secret.closesAtMillis)
        }
        if message.author == me || local[LocalDataKey.secretBallot] != nil { scheduleSecretPoll(message, secret) }
    }
}
