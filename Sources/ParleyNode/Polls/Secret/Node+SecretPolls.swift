import Foundation
import Logging
public import ParleyCore
public import ParleyCrypto
public import ParleyStore

/// Secret polls (docs/BALLOTS.md): the electorate is fixed when the poll is posted, each ballot is
/// ring-signed and relayed through two other members, and the count is shown at the close.
extension Node {
    /// Posts a secret poll whose electorate is every current member with a published ballot key. In
    /// a chat without keys yet, this node publishes its own (`prepareSecretPolls`) and waits up to
    /// `ballotKeyWait` for the keys still missing: connected members', and any while too few are
    /// held to hide a vote.
    /// - Returns: the poll, and the members left out because their key has not reached this node.
    public func createSecretPoll(chat: ChatID, question: SecretPoll.Question, closesAtMillis: Int64) async throws
        -> (poll: StoredMessage, withoutKey: [PeerID])
    {
        guard closesAtMillis > clock.wallMillis else {
            throw NodeError.invalid("a secret poll needs a closing time in the future")
        }
        try await prepareSecretPolls(chat: chat)
        var (electors, withoutKey) = try currentElectorate(chat: chat)
        var others: Int { electors.count(where: { $0.member != me }) }
        let deadline = clock.now + configuration.ballotKeyWait
        while !withoutKey.isEmpty, clock.now < deadline {
            let connected = await engine.connectedPeers
            guard others < SecretPoll.minHidingElectors || !Set(withoutKey).isDisjoint(with: connected) else { break }
            try await clock.sleep(for: .milliseconds(100))
            (electors, withoutKey) = try currentElectorate(chat: chat)
        }
        let hiding = others
        guard hiding >= SecretPoll.minHidingElectors else { throw NodeError.tooFewToHide(chat, others: hiding) }
        let secret: SecretPoll
        do { secret = try SecretPoll(question: question, closesAtMillis: closesAtMillis, electorate: electors) } catch {
            throw NodeError.invalid("\(error)")
        }
        let poll = try await send(chat: chat, tag: .poll, content: try secret.encoded())
        scheduleSecretPoll(poll.message, secret)
        return (poll, withoutKey)
    }

    /// Casts this user's secret ballot (`vote` on a secret poll): signed as one of the electorate, and
    /// sent along two independent paths when four other members are reachable (one otherwise), each
    /// sealed to a member chosen at random (the publisher) and sent through another (the first relay).
    /// The same bytes travel both ways, so the ballot counts once, and one hostile relay or publisher
    /// can neither keep it out of the creator's batch nor make it come out alone. A secret ballot is final.
    /// - Parameters:
    ///   - choices: `["up"]`/`["down"]`, or option ids or texts.
    ///   - keepChoice: keep the choice on this node after the close; by default only "you voted" stays.
    /// - Returns: the normalised selection and the paths it went along.
    func castSecretBallot(
        _ snapshot: PollSnapshot, _ secret: SecretPoll, _ status: SecretPollStatus, choices: [String], keepChoice: Bool
    ) async throws -> SecretBallotCast {
        let (chat, poll) = (snapshot.poll.message.chat, snapshot.poll.id)
        try Self.requireOpen(snapshot)
        // Every node refuses this poll alike; casting into it would only expose the voter.
        if let problem = status.tally.electorateProblem, problem.isFinal {
            throw NodeError.refusedElectorate(poll, problem)
        }
        guard let elector = secret.elector(me) else {
            throw NodeError.notInElectorate(poll, electors: secret.electorate.count)
        }
        let key = try ballotKeyPair(chat: chat)
        guard elector.key == key.publicKey else {
            throw NodeError.invalid("the poll lists a ballot key for you that is not this identity's")
        }
        let selection = try choices.map { try Self.resolveSecretChoice($0, in: secret) }
        let ballot: SecretBallot
        do {
            ballot = try SecretBallot.cast(chat: chat, poll: poll, secret: secret, selection: selection, key: key)
        } catch {
            throw NodeError.invalid("\(error)")
        }
        let paths = try await choosePaths(chat: chat, creator: snapshot.poll.message.author, avoiding: [])
        if let previous = try await store.claimLocalData(
            message: poll, key: LocalDataKey.pollVote, value: ballot.selection.joined(separator: ","))
        {
            throw NodeError.alreadyVoted(poll, choice: previous)
        }
        if keepChoice { try await store.setLocalData(message: poll, key: LocalDataKey.secretKeepChoice, value: "kept") }
        try await store.setLocalData(message: poll, key: LocalDataKey.secretBallot, value: Hex.encode(ballot.encoded))
        // Scheduled before sending: if the send fails, the check after the publishing time tries again.
        scheduleSecretPoll(snapshot.poll.message, secret)
        try await relay(ballot.encoded, chat: chat, poll: poll, secret: secret, along: paths)
        return SecretBallotCast(selection: ballot.selection, paths: paths)
    }

    /// The timers a secret poll sets on this node: its creator publishes the ballots it holds a
    /// publishing delay after the closing time (its batch, whatever it holds then) and closes it a
    /// release window after; a voter checks,
    /// a retry interval after the publishing time, that its ballot was published.
    func scheduleSecretPoll(_ poll: Message, _ secret: SecretPoll) {
        if poll.author == me {
            secretBallots.scheduleRelease(poll: poll.id, chat: poll.chat, atMillis: publishingTime(of: secret))
            pollDeadlines.add(
                poll: poll.id, chat: poll.chat,
                atMillis: secret.closesAtMillis.adding(configuration.ballotReleaseWindow))
        }
        if (try? store.localData(message: poll.id, key: LocalDataKey.secretBallot)) != nil {
            secretBallots.scheduleCheck(
                poll: poll.id, chat: poll.chat,
                atMillis: publishingTime(of: secret).adding(configuration.ballotRetryAfter))
        }
    }

    /// When the poll's creator publishes the ballots it holds: every ballot of the poll goes out in
    /// that one batch, so no one can link a ballot to the moment it was handed on.
    func publishingTime(of secret: SecretPoll) -> Int64 {
        secret.closesAtMillis.adding(configuration.ballotPublishDelay)
    }

    /// The paths of a ballot: a first relay and a publisher each, every member on them distinct, other
    /// than this node, with a session now, chosen at random. Two paths when four such members are
    /// reachable, one when two or three are. Neither a first relay nor a publisher is the poll's creator
    /// (which sees what each publisher hands it at the closing time) unless no one else is reachable; members in
    /// `avoiding` (the relays of an earlier try) are used only if there are not two others.
    func choosePaths(chat: ChatID, creator: PeerID, avoiding: Set<PeerID>) async throws -> [BallotPath] {
        let members = Set(try store.members(of: chat) ?? [])
        let reachable = members.intersection(await engine.connectedPeers).subtracting([me])
        let fresh = reachable.subtracting(avoiding)
        var pool = fresh.count >= 2 ? fresh : reachable
        guard pool.count >= 2 else {
            throw NodeError.invalid(
                "a secret ballot travels through two other members, and \(pool.count) \(pool.count == 1 ? "is" : "are") reachable now; try again when more are online"
            )
        }
        var paths: [BallotPath] = []
        // Nor is a publisher, when it can be helped: what the creator holds itself no publisher has
        // committed to, so it could leave it out unseen. (Both are found while the pool holds two.)
        while paths.count < 2, let first = pool.subtracting([creator]).randomElement() ?? pool.randomElement(),
            let publisher = pool.subtracting([first, creator]).randomElement()
                ?? pool.subtracting([first]).randomElement()
        {
            paths.append(BallotPath(firstRelay: first, publisher: publisher))
            pool.subtract([first, publisher])
        }
        return paths
    }

    /// Seals the envelope to each path's publisher and hands it to that path's first relay, which
    /// holds it until the closing time (passes it on at once after it: a retry).
    func relay(_ ballot: [UInt8], chat: ChatID, poll: MessageID, secret: SecretPoll, along paths: [BallotPath])
        async throws
    {
        let envelope = try BallotEnvelope(chat: chat, ballot: ballot).encoded(size: secret.envelopeBytes)
        let hold = UInt32(max(0, min(secret.closesAtMillis - clock.wallMillis, Int64(UInt32.max))))
        for path in paths {
            let sealed = try path.publisher.agreementKey().seal(envelope)
            secretBallots.noteRelays([path.firstRelay, path.publisher], for: poll)
            await transmit(
                [.ballotRelay(publisher: path.publisher, holdMillis: hold, sealed: sealed)], to: path.firstRelay)
        }
    }

    /// The snapshot of a secret poll: counts withheld until the creator's close.
    /// A member that signed two histories has its listing in the electorate left unchecked (its key is
    /// disputed) and its messages from the fork on left out, the same on every node (PROTOCOL.md §4.4).
    func secretSnapshot(_ stored: StoredMessage, _ secret: SecretPoll, forks: ChatForks) throws -> PollSnapshot {
        let poll = stored.message
        let all = try store.messages(matching: MessageCriteria(chat: poll.chat, referencing: poll.id)).map(\.message)
        let related = all.filter(forks.counts)
        let keys = try store.messages(matching: MessageCriteria(chat: poll.chat, tag: .ballotKey)).map(\.message)
            .filter(forks.counts)
        let members = try store.membersWhenSent(poll.id) ?? []
        // Once the creator has closed the poll, the count checks the creator's ballots (only those cost
        // a ring check): on both cores first. Before the close it checks none.
        if PollRules.winningClose(of: poll, among: related) != nil {
            secretBallots.checkAll(
                related.filter { $0.tag == .pollSecretBallot && $0.author == poll.author }, on: poll.id
            ) { SecretPollRules.check($0, poll: poll, secret: secret) }
        }
        let tally = SecretPollRules.result(
            poll: poll, secret: secret, members: members, related: related, ballotKeys: keys,
            disputed: Set(forks.forkedFrom.keys)
        ) { message in
            self.secretBallots.checked(message, on: poll.id) { SecretPollRules.check($0, poll: poll, secret: secret) }
        }
        let own =
            try store.localData(message: poll.id, key: LocalDataKey.pollVote).map {
                $0.split(separator: ",").map(String.init)
            } ?? []
        // After the close the choice is erased (unless kept) and only "you voted" remains.
        let voted = try !own.isEmpty || store.localData(message: poll.id, key: LocalDataKey.secretVoted) != nil
        let phase: PollPhase = tally.closed ? .closed : clock.wallMillis >= secret.closesAtMillis ? .closing : .open
        let electors = secret.electorate.map(\.member)
        // Not shown once closed even before the erase has run (it follows the close's storing, which
        // views already see), so no view of a closed poll shows a choice the user did not ask to keep;
        // whether it was asked is read only then.
        let shownVotes =
            try tally.closed && !own.isEmpty
            && store.localData(message: poll.id, key: LocalDataKey.secretKeepChoice) == nil ? [] : own
        let status = SecretPollStatus(
            electorate: electors, hiddenAmong: secret.hidingElectors(creator: poll.author), resultsFinal: tally.closed,
            tally: tally,
            ownBallot: voted ? try ownSecretBallot(poll: poll, tally: tally, related: related) : nil)
        return PollSnapshot(
            poll: stored, state: .secret(secret, status), question: secret.text, phase: phase, ownVotes: shownVotes,
            ownBallot: nil
        )
        .disputed(PollDisputes.of(poll: poll, forks: forks, closed: tally.closed))
    }

    /// Published means a ballot message carries exactly the bytes this node cast: a ballot that only
    /// borrows its linking tag (a publisher that withholds the real one) does not stop the retry.
    private func ownSecretBallot(poll: Message, tally: SecretTally, related: [Message]) throws
        -> SecretPollStatus.OwnBallot
    {
        if tally.closed {
            let tag = try LSAG.linkingTag(
                of: ballotKeyPair(chat: poll.chat), scope: SecretBallot.scope(chat: poll.chat, poll: poll.id))
            return tally.countedTags.contains(tag) ? .counted : .notCounted
        }
        guard let hex = try store.localData(message: poll.id, key: LocalDataKey.secretBallot) else { return .relayed }
        let cast = try Hex.decode(hex)
        // Only the creator publishes: a publisher that put the bytes out itself (late, or to this node
        // alone) must not stop the retry.
        return related.contains { $0.tag == .pollSecretBallot && $0.author == poll.author && $0.content == cast }
            ? .published : .relayed
    }

    static func resolveSecretChoice(_ text: String, in secret: SecretPoll) throws -> String {
        let key = text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        if let id = secret.choiceIDs.first(where: { $0 == key }) { return id }
        if let index = secret.choiceTexts.firstIndex(where: { $0.lowercased() == key }) {
            return secret.choiceIDs[index]
        }
        let known = zip(secret.choiceIDs, secret.choiceTexts).map { $0 == $1 ? $0 : "\($0)=\($1)" }.joined(
            separator: ", ")
        throw NodeError.invalid("no choice '\(text)' in this poll (choices: \(known))")
    }
}
