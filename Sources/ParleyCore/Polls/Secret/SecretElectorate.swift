public import ParleyCrypto

/// Why a secret poll's electorate is refused: such a poll counts nothing on any node, and no node
/// casts into it (docs/BALLOTS.md §1).
public enum ElectorateProblem: Hashable, Sendable, CustomStringConvertible {
    /// An elector was not a member of the chat in the membership epoch the poll was sealed for.
    case notAMember(PeerID)
    /// An elector is listed with a key it never published in the chat: a key the creator added.
    case unpublishedKey(PeerID)
    /// Fewer electors than `SecretPoll.minHidingElectors` besides the creator: a vote hides among too few.
    case tooFewToHide(others: Int)

    /// Whether no message still to arrive can lift it: the poll alone says how many electors it lists,
    /// and its epoch's members are fixed once it is stored. A key not seen published may be on its
    /// way, or be a forked member's that a fork proof will leave unchecked, so that one is judged at
    /// the tally only.
    public var isFinal: Bool {
        switch self {
        case .notAMember, .tooFewToHide: true
        case .unpublishedKey: false
        }
    }

    public var description: String {
        switch self {
        case let .notAMember(member):
            "elector \(member.shortHex) was not a member of the chat when the poll was posted"
        case let .unpublishedKey(member):
            "elector \(member.shortHex) is listed with a ballot key it has not published here"
        case let .tooFewToHide(others):
            "only \(others) member\(others == 1 ? "" : "s") besides the creator could hide a vote; a secret ballot needs at least \(SecretPoll.minHidingElectors)"
        }
    }
}

extension SecretPollRules {
    /// Why the electorate is not trustworthy, or nil. A pure function of the poll and stored
    /// messages, so every node decides the same:
    /// - every elector is one of `members`, the members of the epoch the poll was sealed for (its
    ///   place in history, which every node holding the poll agrees on; a legacy chat's: its invite's);
    /// - every elector is listed with a key its member published in this chat (a "BallotKey" message
    ///   it authored), so a creator cannot slip in keys of its own; `disputed` members (a proven fork)
    ///   are not checked, as which key they published depends on the branch a node got;
    /// - at least `SecretPoll.minHidingElectors` electors are not the poll's creator.
    /// The final problems (`ElectorateProblem.isFinal`: membership, then size) are reported before a
    /// key problem, so a key that never arrives cannot hide one from a voter's node.
    /// Members with a key whom the poll leaves out are allowed: whether their key had reached the
    /// creator when it posted is not something every node can agree on.
    public static func electorateProblem(
        _ secret: SecretPoll, poll: Message, members: Set<PeerID>, ballotKeys: some Sequence<Message>,
        disputed: Set<PeerID> = []
    ) -> ElectorateProblem? {
        if let outsider = secret.electorate.first(where: { !members.contains($0.member) }) {
            return .notAMember(outsider.member)
        }
        // Before the keys: else a creator listing a made-up key (its own, say) in a ring of three
        // gets `unpublishedKey`, which is not final, and the honest member's node casts into it.
        let others = secret.hidingElectors(creator: poll.author)
        if others < SecretPoll.minHidingElectors { return .tooFewToHide(others: others) }
        var published = Set<[UInt8]>()
        for message in ballotKeys where message.tag == .ballotKey && message.chat == poll.chat {
            published.insert(message.author.rawRepresentation + message.content)
        }
        for elector in secret.electorate
        where !disputed.contains(elector.member)
            && !published.contains(elector.member.rawRepresentation + elector.key.rawRepresentation)
        {
            return .unpublishedKey(elector.member)
        }
        return nil
    }
}
