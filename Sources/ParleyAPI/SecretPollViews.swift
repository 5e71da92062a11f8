import ParleyNode
import ParleyCrypto
import ParleyCore

/// The `secret` part of a secret poll's `PollResultsView`: counts only, never voters.
public struct SecretPollView: Codable, Sendable, Hashable {
    /// Where this user's ballot is.
    public enum OwnBallot: String, Codable, Sendable, Hashable {
        /// Sealed and sent along its paths; the creator publishes it with every other ballot after the
        /// closing time.
        case relayed
        /// Published in the chat.
        case published
        /// Counted in the final result.
        case counted
        /// The poll closed without it: not published before the creator's close.
        case notCounted

        init(_ own: SecretPollStatus.OwnBallot) {
            self =
                switch own {
                case .relayed: .relayed
                case .published: .published
                case .counted: .counted
                case .notCounted: .notCounted
                }
        }
    }

    public struct Elector: Codable, Sendable, Hashable {
        public let id: String
        public let name: String?
    }

    /// The members who may vote (those who had joined, with a ballot key, when it was posted).
    public let electorate: [Elector]
    /// How many members a vote hides among: the electors other than the creator, who reads every
    /// ballot before publishing it. Views show it before casting.
    public let hiddenAmong: Int
    /// The creator's close is here: counts are final. Until then every count reads 0.
    public let resultsFinal: Bool
    /// Electors counted; the rest of these are nil until `resultsFinal`.
    public let counted: Int?
    /// Electors who cast two different ballots: none of them counts.
    public let conflicting: Int?
    /// Ballots that fail their checks (signature, poll, choices).
    public let rejected: Int?
    /// Valid ballots the close does not cover.
    public let late: Int?
    /// Ballot messages published by a member other than the poll's creator: they count nothing.
    public let byOthers: Int?
    /// Valid ballots a publisher committed to at the closing time and revealed after the close, which
    /// the creator did not publish: the creator left them out, or that publisher never handed them
    /// over. The counts stand as published; every node shows this alike.
    public let suppressed: Int?
    /// The publishers whose reveals show `suppressed`.
    public let suppressionRevealedBy: [Elector]?
    /// Why the poll is refused on every node (counts nothing, takes no ballot): an elector who was
    /// not a member, a key its member never published, or too few electors besides the creator.
    public let electorateProblem: String?
    /// This user's ballot: relayed, published, counted or notCounted; nil before voting. After the
    /// close it stays while the choice (`ownVotes`) is erased, unless the user asked to keep it.
    public let ownBallot: OwnBallot?

    init(_ status: SecretPollStatus, names: [PeerID: String]) {
        electorate = status.electorate.map { Elector(id: $0.hex, name: names[$0]) }
        hiddenAmong = status.hiddenAmong
        resultsFinal = status.resultsFinal
        let tally = status.tally
        (counted, conflicting, rejected, late, byOthers, suppressed) =
            status.resultsFinal
            ? (tally.counted, tally.conflicting, tally.rejected, tally.late, tally.byOthers, tally.suppressed)
            : (nil, nil, nil, nil, nil, nil)
        suppressionRevealedBy =
            status.resultsFinal
            ? tally.suppressionRevealedBy.sorted().map { Elector(id: $0.hex, name: names[$0]) } : nil
        electorateProblem = tally.electorateProblem?.description
        ownBallot = status.ownBallot.map(OwnBallot.init)
    }
}

/// `pollVote` on a poll of any kind: the poll as it stands after the vote, and what carried the vote.
public struct VoteView: Codable, Sendable, Hashable {
    /// The poll after the vote, so a front end redraws it without asking again.
    public let poll: PollResultsView
    /// On a yes/no or options poll: the vote, a message of this user's.
    public let message: MessageView?
    /// On a secret poll: the ballot cast and the paths it travels (no message of this user's carries it).
    public let secretBallot: SecretBallotView?

    init(poll: PollResultsView, message: MessageView?, secretBallot: SecretBallotView?) {
        (self.poll, self.message, self.secretBallot) = (poll, message, secretBallot)
    }
}

/// A secret ballot just cast: its choice and how it travels.
public struct SecretBallotView: Codable, Sendable, Hashable {
    /// One way the ballot travels.
    public struct Path: Codable, Sendable, Hashable {
        /// The member the sealed ballot went to first: it knows this user voted, not how, holds the
        /// envelope until the closing time, and cannot find the ballot later (the creator publishes
        /// every ballot of the poll in one batch).
        public let firstRelay: String
        public let firstRelayName: String?
        /// The member that opens the ballot and hands it to the poll's creator at the closing time: it
        /// knows how, not who.
        public let publisher: String
        public let publisherName: String?
    }

    /// The choice ids this ballot selects (kept on this node only, and only until the close unless the
    /// vote asked to keep it).
    public let selection: [String]
    /// The paths the same ballot went along: two independent ones when four other members were
    /// reachable, so one hostile member on a path can neither keep it out of the batch nor single it out.
    public let paths: [Path]

    init(_ cast: SecretBallotCast, names: [PeerID: String]) {
        selection = cast.selection
        paths = cast.paths.map {
            Path(
                firstRelay: $0.firstRelay.hex, firstRelayName: names[$0.firstRelay], publisher: $0.publisher.hex,
                publisherName: names[$0.publisher])
        }
    }
}
