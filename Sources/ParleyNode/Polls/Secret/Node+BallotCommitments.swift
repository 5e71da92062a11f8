import Logging
import ParleyCore
import ParleyCrypto
import ParleyStore

/// Suppression made visible (docs/BALLOTS.md §4, "Suppression"). The creator reads every ballot
/// before publishing it, so it could leave out those it dislikes. A publisher therefore commits, as
/// it hands ballots over before the creator's batch, to each of them (one salted hash each: nobody
/// can tell which published ballots it held); after the creator's close it reveals each committed
/// ballot the close does not admit, and every node counts those reveals alike
/// (`SecretPollRules.suppression`). It names the ballot and the publisher, never the voter.
extension Node {
    /// Publisher: commits to the ballots in `held` it has not committed to yet, within
    /// `SecretBallotDesk.commitWindow` of the closing time (the creator's batch comes 10 s after it). One that arrives later (a retry) is never committed to: it can only go
    /// out in the creator's late batch, and revealing it would name its voter to whoever passed it
    /// on late. The salts are kept before a message goes out, and what was kept but not sent (a
    /// crash in between) goes out at the next hand-over.
    func commit(to held: some Collection<[UInt8]>, on poll: Message, secret: SecretPoll) async throws {
        var kept =
            try store.localData(message: poll.id, key: LocalDataKey.ballotCommitment).map(Self.committedBallots) ?? []
        let known = Set(kept.map(\.ballot))
        let new = held.filter { !known.contains($0) }
        // Well before the creator's publishing time, so a retry (12 s after the closing time on its
        // voter's clock) is not committed to by a publisher whose clock runs a few seconds behind.
        if !new.isEmpty, clock.wallMillis < secret.closesAtMillis.adding(SecretBallotDesk.commitWindow) {
            kept += new.map { (secureRandomBytes(count: BallotCommitment.saltBytes), $0) }
            try await store.setLocalData(
                message: poll.id, key: LocalDataKey.ballotCommitment, value: Self.encodeCommitted(kept))
        }
        let criteria = MessageCriteria(chat: poll.chat, tag: .pollBallotCommit, referencing: poll.id)
        let sent = try store.messages(matching: criteria).lazy.filter { $0.message.author == self.me }
            .reduce(into: Set<Digest32>()) {
                $0.formUnion((try? BallotCommitment(decoding: $1.message.content).entries) ?? [])
            }
        let unsent = kept.filter { !sent.contains(BallotCommitment.entry(salt: $0.salt, ballot: $0.ballot)) }
        guard !unsent.isEmpty else { return }
        let commitment = try BallotCommitment(salted: unsent)
        _ = try await send(
            chat: poll.chat, tag: .pollBallotCommit, content: commitment.encoded(),
            references: [MessageReference(id: poll.id, tag: .pollBallotCommit)])
        logger.info(
            "committed to the secret ballots this node hands on",
            metadata: ["poll": "\(poll.id.shortHex)", "ballots": "\(unsent.count)"])
    }

    /// Publisher, once the creator's close is here and every message of the creator's that the close
    /// covers is stored (a missing one could be a published ballot, and revealing that would show
    /// which ballots this node held): reveals each ballot it committed to under whose linking tag the
    /// creator published no valid ballot the close admits, then forgets the commitment (its salts and
    /// ballots). Until those messages are here it looks again every sync interval, for at most
    /// `SecretBallotDesk.revealWaitMillis`, then gives up. A crash in between reveals again; the tally
    /// counts a tag once.
    func revealLeftOutBallots(on poll: Message, waitingUntil: Int64? = nil) async throws {
        guard let value = try store.localData(message: poll.id, key: LocalDataKey.ballotCommitment),
            let secret = try Poll(poll).secret
        else { return }
        let related = try store.messages(matching: MessageCriteria(chat: poll.chat, referencing: poll.id)).map(
            \.message)
        guard let close = PollRules.winningClose(of: poll, among: related) else { return }
        let held = try store.versionVector(chat: poll.chat)[poll.author] ?? .contiguous(0)
        if let covered = close.coverage.holdings[poll.author], !held.holdsAll(of: covered) {
            let now = clock.wallMillis
            let until = waitingUntil ?? now + SecretBallotDesk.revealWaitMillis
            guard now < until else {
                logger.warning(
                    "gave up revealing left-out secret ballots: the creator's messages its close covers never all arrived",
                    metadata: [
                        "poll": "\(poll.id.shortHex)"
                    ])
                return try await forgetCommitment(on: poll.id)
            }
            secretBallots.scheduleReveal(
                poll: poll.id, chat: poll.chat, atMillis: now.adding(configuration.syncInterval), untilMillis: until)
            return
        }
        // By tag, and only valid ballots: a creator could publish garbage carrying a voter's tag.
        let published = Set(
            related.lazy.filter { $0.tag == .pollSecretBallot && $0.author == poll.author && close.admits($0) }
                .compactMap { message in
                    self.secretBallots.checked(message, on: poll.id) {
                        SecretPollRules.check($0, poll: poll, secret: secret)
                    }?.ballot.linkingTag
                })
        let reference = MessageReference(id: poll.id, tag: .pollBallotReveal)
        for (salt, ballot) in try Self.committedBallots(value) {
            guard let tag = try? SecretBallot(decoding: ballot).linkingTag, !published.contains(tag) else { continue }
            _ = try await send(
                chat: poll.chat, tag: .pollBallotReveal, content: BallotReveal(salt: salt, ballot: ballot).encoded(),
                references: [reference])
            logger.warning(
                "the poll's creator did not publish a secret ballot this node handed it: revealed it",
                metadata: [
                    "poll": "\(poll.id.shortHex)", "creator": "\(poll.author.shortHex)",
                ])
        }
        try await forgetCommitment(on: poll.id)
    }

    /// Erases the salts and ballots this node committed to on `poll`.
    func forgetCommitment(on poll: MessageID) async throws {
        _ = try await store.deleteLocalData(message: poll, key: LocalDataKey.ballotCommitment)
    }

    /// Lines of salt and ballot, in hex.
    private static func encodeCommitted(_ ballots: [(salt: [UInt8], ballot: [UInt8])]) -> String {
        ballots.map { Hex.encode($0.salt) + " " + Hex.encode($0.ballot) }.joined(separator: "\n")
    }

    private static func committedBallots(_ value: String) throws -> [(salt: [UInt8], ballot: [UInt8])] {
        try value.split(separator: "\n").map { line in
            let parts = line.split(separator: " ")
            guard parts.count == 2 else { throw NodeError.invalid("a kept ballot commitment does not read") }
            return (try Hex.decode(String(parts[0])), try Hex.decode(String(parts[1])))
        }
    }
}
