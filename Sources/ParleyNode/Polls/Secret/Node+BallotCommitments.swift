import Logging
import ParleyCore
import ParleyCrypto
import ParleyStore

/// Suppression made visible (docs/BALLOTS.md §4, "Suppression"). The creator reads every ballot
/// before publishing it, so it could leave out those it dislikes. A publisher therefore commits, at
/// its first hand-over, to every ballot it holds (one salted hash each: nobody can tell which
/// published ballots it held); after the creator's close it reveals each committed ballot the close
/// does not admit, and every node counts those reveals alike (`SecretPollRules.suppression`). It
/// names the ballot and the publisher, never the voter.
extension Node {
    /// Publisher: commits to `held` on `poll` unless it did already. The salts are kept before the
    /// message goes out, so a crash in between sends the same commitment again.
    func commit(to held: some Collection<[UInt8]>, on poll: Message) async throws {
        let kept: [(salt: [UInt8], ballot: [UInt8])]
        if let value = try store.localData(message: poll.id, key: LocalDataKey.ballotCommitment) {
            kept = try Self.committedBallots(value)
        } else {
            kept = held.map { (secureRandomBytes(count: BallotCommitment.saltBytes), $0) }
            try await store.setLocalData(message: poll.id, key: LocalDataKey.ballotCommitment, value: Self.encodeCommitted(kept))
        }
        let criteria = MessageCriteria(chat: poll.chat, tag: .pollBallotCommit, referencing: poll.id)
        guard try !store.messages(matching: criteria).contains(where: { $0.message.author == me }) else { return }
        let commitment = try BallotCommitment(salted: kept)
        _ = try await send(
            chat: poll.chat, tag: .pollBallotCommit, content: commitment.encoded(), references: [MessageReference(id: poll.id, tag: .pollBallotCommit)])
        logger.info("committed to the secret ballots this node hands on", metadata: ["poll": "\(poll.id.shortHex)", "ballots": "\(kept.count)"])
    }

    /// Publisher, once the creator's close is here: reveals each ballot it committed to that no ballot
    /// message of the creator the close admits carries, then forgets the commitment (its salts and
    /// ballots). A crash in between reveals again; the tally counts a ballot once.
    func revealLeftOutBallots(on poll: Message) async throws {
        guard let value = try store.localData(message: poll.id, key: LocalDataKey.ballotCommitment) else { return }
        let related = try store.messages(matching: MessageCriteria(chat: poll.chat, referencing: poll.id)).map(\.message)
        guard let close = PollRules.winningClose(of: poll, among: related) else { return }
        let published = Set(related.lazy.filter { $0.tag == .pollSecretBallot && $0.author == poll.author && close.admits($0) }.map(\.content))
        let reference = MessageReference(id: poll.id, tag: .pollBallotReveal)
        for (salt, ballot) in try Self.committedBallots(value) where !published.contains(ballot) {
            _ = try await send(chat: poll.chat, tag: .pollBallotReveal, content: BallotReveal(salt: salt, ballot: ballot).encoded(), references: [reference])
            logger.warning("the poll's creator did not publish a secret ballot this node handed it: revealed it", metadata: [
                "poll": "\(poll.id.shortHex)", "creator": "\(poll.author.shortHex)",
            ])
        }
        _ = try await store.deleteLocalData(message: poll.id, key: LocalDataKey.ballotCommitment)
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
