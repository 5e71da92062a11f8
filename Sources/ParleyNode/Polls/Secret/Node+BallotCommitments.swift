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
    /// Publisher: commits to the ballots in `held` it has not committed to yet, while the creator's
    /// batch is still ahead. One that arrives later (a retry) is never committed to: it can only go
    /// out in the creator's late batch, and revealing it would name its voter to whoever passed it
    /// on late. The salts are kept before a message goes out, and what was kept but not sent (a
    /// crash in between) goes out at the next hand-over.
    func commit(to held: some Collection<[UInt8]>, on poll: Message, secret: SecretPoll) async throws {
        var kept = try store.localData(message: poll.id, key: LocalDataKey.ballotCommitment).map(Self.committedBallots) ?? []
        let known = Set(kept.map(\.ballot))
        let new = held.filter { !known.contains($0) }
        if !new.isEmpty, clock.wallMillis < publishingTime(of: secret) {
            kept += new.map { (secureRandomBytes(count: BallotCommitment.saltBytes), $0) }
            try await store.setLocalData(message: poll.id, key: LocalDataKey.ballotCommitment, value: Self.encodeCommitted(kept))
        }
        let criteria = MessageCriteria(chat: poll.chat, tag: .pollBallotCommit, referencing: poll.id)
        let sent = try store.messages(matching: criteria).lazy.filter { $0.message.author == self.me }
            .reduce(into: Set<Digest32>()) { $0.formUnion((try? BallotCommitment(decoding: $1.message.content).entries) ?? []) }
        let unsent = kept.filter { !sent.contains(BallotCommitment.entry(salt: $0.salt, ballot: $0.ballot)) }
        guard !unsent.isEmpty else { return }
        let commitment = try BallotCommitment(salted: unsent)
        _ = try await send(
            chat: poll.chat, tag: .pollBallotCommit, content: commitment.encoded(), references: [MessageReference(id: poll.id, tag: .pollBallotCommit)])
        logger.info("committed to the secret ballots this node hands on", metadata: ["poll": "\(poll.id.shortHex)", "ballots": "\(unsent.count)"])
    }

    /// Publisher, once the creator's close is here and every message of the creator's below it is
    /// stored (a gap could hide a published ballot, and revealing it would show which ballots this
    /// node held): reveals each ballot it committed to that no ballot message of the creator the
    /// close admits carries, then forgets the commitment (its salts and ballots). Until the gap fills
    /// the reveal waits on the timer. A crash in between reveals again; the tally counts a tag once.
    func revealLeftOutBallots(on poll: Message) async throws {
        guard let value = try store.localData(message: poll.id, key: LocalDataKey.ballotCommitment) else { return }
        let related = try store.messages(matching: MessageCriteria(chat: poll.chat, referencing: poll.id)).map(\.message)
        guard let close = PollRules.winningClose(of: poll, among: related) else { return }
        let contiguous = try store.contiguousSequences(chat: poll.chat)[poll.author] ?? 0
        guard contiguous + 1 >= close.sequence else {
            secretBallots.scheduleReveal(poll: poll.id, chat: poll.chat)
            return
        }
        let published = Set(related.lazy.filter { $0.tag == .pollSecretBallot && $0.author == poll.author && close.admits($0) }.map(\.content))
        let reference = MessageReference(id: poll.id, tag: .pollBallotReveal)
        for (salt, ballot) in try Self.committedBallots(value) where !published.contains(ballot) {
            _ = try await send(chat: poll.chat, tag: .pollBallotReveal, content: BallotReveal(salt: salt, ballot: ballot).encoded(), references: [reference])
            logger.warning("the poll's creator did not publish a secret ballot this node handed it: revealed it", metadata: [
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
