public import ParleyCrypto

/// The count of a secret poll: per choice, no voters (docs/BALLOTS.md §5).
public struct SecretTally: Hashable, Sendable {
    public let poll: MessageID
    /// Votes per choice id ("up"/"down" or option ids), every choice listed.
    public let counts: [String: Int]
    /// Electors whose ballot counts (one per linking tag).
    public let counted: Int
    /// Linking tags whose ballots select different choices: none of them counts.
    public let conflicting: Int
    /// Ballots that do not decode, are for another poll, select what the poll does not offer, or
    /// whose ring signature fails.
    public let rejected: Int
    /// Valid ballots the creator's close does not cover.
    public let late: Int
    /// Ballot messages whose author is not the poll's creator. Only the creator publishes (in its
    /// batches, BALLOTS.md §4): a ballot another member put out itself, on arrival or alone, would
    /// let its first relay link it to the voter, so it counts nothing and costs no ring check.
    public let byOthers: Int
    /// Ballots the creator left out, by linking tag: valid ballots a publisher committed to before the
    /// creator's batch and revealed after the close, under a tag no ballot message of the creator
    /// that the close admits carries. Either the creator dropped them or that publisher never handed them over; the counts
    /// stand as the creator published them, and every node shows the dispute alike.
    public let suppressed: Int
    /// The publishers whose reveals show `suppressed`.
    public let suppressionRevealedBy: Set<PeerID>
    /// Linking tags counted, so a voter's node can find its own.
    public let countedTags: Set<LinkingTag>
    /// The creator's close: the result is final once it is here.
    public let close: PollClose?
    /// nil while the electorate passes `SecretPollRules.electorateProblem`; otherwise why the poll
    /// counts nothing.
    public let electorateProblem: ElectorateProblem?

    public var closed: Bool { close != nil }
}

/// A valid ballot message: its decoded ballot, checked against its poll.
public struct CheckedBallot: Hashable, Sendable {
    public let message: MessageID
    public let ballot: SecretBallot
}

public enum SecretPollRules {
    /// Decodes and verifies a "PollSecretBallot" message against its poll; nil if it is not a valid
    /// ballot on it. Verifying costs four scalar multiplications per elector: nodes cache the result
    /// by message id (a message's bytes, so its validity, never change).
    /// A "PollBallotReveal" is checked the same way, on the ballot it reveals.
    public static func check(_ message: Message, poll: Message, secret: SecretPoll) -> CheckedBallot? {
        let bytes: [UInt8]? =
            switch message.tag {
            case .pollSecretBallot: message.content
            case .pollBallotReveal: try? BallotReveal(decoding: message.content).ballot
            default: nil
            }
        guard let bytes, PollRules.references(message, poll),
            let ballot = try? SecretBallot(decoding: bytes),
            (try? ballot.verify(chat: poll.chat, poll: poll.id, secret: secret)) != nil
        else { return nil }
        return CheckedBallot(message: message.id, ballot: ballot)
    }

    /// The tally: a pure function of the poll, the chat's "BallotKey" messages, the messages
    /// referencing the poll, and (through `check`) the ballots' validity.
    /// - Parameters:
    ///   - related: messages referencing the poll (any order, duplicates allowed, any tags).
    ///   - members: the members of the epoch the poll was sealed for (`electorateProblem`).
    ///   - ballotKeys: the chat's "BallotKey" messages; each elector's key must be among its member's.
    ///   - check: `SecretPollRules.check` or a cache of it.
    public static func tally(
        poll: Message, secret: SecretPoll, members: Set<PeerID>, related: some Sequence<Message>,
        ballotKeys: some Sequence<Message>,
        disputed: Set<PeerID> = [], check: (Message) -> CheckedBallot?
    ) -> SecretTally {
        var seen = Set<MessageID>()
        let related = related.filter { seen.insert($0.id).inserted && PollRules.references($0, poll) }
        let close = PollRules.winningClose(of: poll, among: related)
        if let problem = electorateProblem(
            secret, poll: poll, members: members, ballotKeys: ballotKeys, disputed: disputed)
        {
            return .nothingCounted(poll: poll.id, secret: secret, close: close, electorateProblem: problem)
        }
        var selections: [LinkingTag: Set<[String]>] = [:]
        var rejected = 0
        var late = 0
        var byOthers = 0
        for message in related where message.tag == .pollSecretBallot {
            guard message.author == poll.author else { byOthers += 1; continue }
            guard let checked = check(message) else { rejected += 1; continue }
            guard close?.admits(message) ?? true else { late += 1; continue }
            selections[checked.ballot.linkingTag, default: []].insert(checked.ballot.selection)
        }
        let (suppressed, revealers) =
            close == nil
            ? ([], [])
            : suppression(poll: poll, secret: secret, published: Set(selections.keys), related: related, check: check)
        var counts = Dictionary(uniqueKeysWithValues: secret.choiceIDs.map { ($0, 0) })
        var countedTags = Set<LinkingTag>()
        for (tag, choices) in selections {
            guard choices.count == 1, let choice = choices.first else { continue }
            countedTags.insert(tag)
            for id in choice { counts[id, default: 0] += 1 }
        }
        return SecretTally(
            poll: poll.id, counts: counts, counted: countedTags.count,
            conflicting: selections.count - countedTags.count,
            rejected: rejected, late: late, byOthers: byOthers, suppressed: suppressed.count,
            suppressionRevealedBy: revealers,
            countedTags: countedTags, close: close, electorateProblem: nil)
    }

    /// Ballots shown to be left out (BALLOTS.md §5, rule 7), counted per linking tag: a
    /// "PollBallotReveal" counts when its author committed to it (in any of its "PollBallotCommit"
    /// messages, at most as many entries in all as the poll has electors), the creator published no
    /// valid ballot under its linking tag that the close admits (`published`; a creator keeps the
    /// first ballot of each tag it receives: a voter that sent two different ones has one published,
    /// and the other is not "left out"), and the ballot is valid on the poll. The ring check comes
    /// last, once per tag shown and once per revealer that fails one in a run; nodes cache checks of
    /// reveals by content, so over time a member costs at most one per entry it committed to.
    static func suppression(
        poll: Message, secret: SecretPoll, published: Set<LinkingTag>, related: [Message],
        check: (Message) -> CheckedBallot?
    ) -> (ballots: Set<LinkingTag>, revealers: Set<PeerID>) {
        var committed: [PeerID: Set<Digest32>] = [:]
        for message in related where message.tag == .pollBallotCommit && message.author != poll.author {
            guard let commitment = try? BallotCommitment(decoding: message.content) else { continue }
            committed[message.author, default: []].formUnion(commitment.entries)
        }
        // An honest publisher holds one ballot per elector: more entries than that say nothing.
        committed = committed.filter { $0.value.count <= secret.electorate.count }
        guard !committed.isEmpty else { return ([], []) }
        var leftOut: [LinkingTag: [UInt8]] = [:]
        var revealers = Set<PeerID>()
        var failed = Set<PeerID>()
        // In a fixed order, so which reveal of a tag is checked does not depend on arrival.
        for message in related.filter({ $0.tag == .pollBallotReveal }).sorted(by: { $0.id < $1.id }) {
            guard let entries = committed[message.author], !failed.contains(message.author),
                let reveal = try? BallotReveal(decoding: message.content),
                entries.contains(BallotCommitment.entry(salt: reveal.salt, ballot: reveal.ballot)),
                let tag = try? SecretBallot(decoding: reveal.ballot).linkingTag, !published.contains(tag)
            else { continue }
            // A second revealer of a tag already shown counts with the same bytes, unchecked again.
            if let shown = leftOut[tag] {
                if shown == reveal.ballot { revealers.insert(message.author) }
                continue
            }
            guard check(message) != nil else {
                failed.insert(message.author)
                continue
            }
            leftOut[tag] = reveal.ballot
            revealers.insert(message.author)
        }
        return (Set(leftOut.keys), revealers)
    }

    /// What views show: the tally once the creator's close is here; until then every count at zero,
    /// with no ballot checked (ballots are published after the closing time, and checking them costs
    /// four scalar multiplications per elector each).
    /// `disputed` members signed two histories in the chat (PROTOCOL.md §4.4): their listing is not
    /// checked against the keys they published, as which key they published depends on the branch a
    /// node got. The ring stays as the poll lists it, so the count is the same on every node.
    public static func result(
        poll: Message, secret: SecretPoll, members: Set<PeerID>, related: [Message], ballotKeys: [Message],
        disputed: Set<PeerID> = [],
        check: (Message) -> CheckedBallot?
    ) -> SecretTally {
        guard PollRules.winningClose(of: poll, among: related) != nil else {
            return .nothingCounted(
                poll: poll.id, secret: secret, close: nil,
                electorateProblem: electorateProblem(
                    secret, poll: poll, members: members, ballotKeys: ballotKeys, disputed: disputed))
        }
        return tally(
            poll: poll, secret: secret, members: members, related: related, ballotKeys: ballotKeys, disputed: disputed,
            check: check)
    }
}

extension SecretTally {
    /// The count as a yes/no tally, without ballots (there are no voters to list).
    public func asYesNoTally() -> PollTally {
        PollTally(
            poll: poll, up: counts["up"] ?? 0, down: counts["down"] ?? 0, ballots: [], close: close, lateVoters: [])
    }

    /// The count as an options poll's outcome, without ballots.
    public func asOutcome(spec: PollSpec) -> PollOutcome {
        PollOutcome(
            poll: poll, spec: spec,
            options: spec.options.enumerated().map {
                let id = PollSpec.optionID(index: $0.offset)
                return .init(id: id, text: $0.element, votes: counts[id] ?? 0, suggestedBy: nil)
            },
            ballots: [], spoiled: 0, answers: [], closure: close, lateVoters: [])
    }

    /// Every choice at zero: a poll whose electorate is not trustworthy, or one not closed yet.
    static func nothingCounted(
        poll: MessageID, secret: SecretPoll, close: PollClose?, electorateProblem: ElectorateProblem?
    ) -> SecretTally {
        SecretTally(
            poll: poll, counts: Dictionary(uniqueKeysWithValues: secret.choiceIDs.map { ($0, 0) }), counted: 0,
            conflicting: 0,
            rejected: 0, late: 0, byOthers: 0, suppressed: 0, suppressionRevealedBy: [], countedTags: [], close: close,
            electorateProblem: electorateProblem)
    }
}
