public import ParleyNode
public import ParleyCrypto
public import ParleyCore
import ParleyStore

/// `poll results --json`. Both kinds share `question`, `totalVotes`, `winners`, `ownVotes`,
/// `isClosed` and `voters`; a yes/no poll adds `up`/`down`, an options poll `options` and the rest.
public struct PollResultsView: Codable, Sendable, Hashable {
    public struct Settings: Codable, Sendable, Hashable {
        public let maxVotes: Int?
        public let unique: Bool
        public let anonymous: Bool
        public let allowAnswers: Bool
        public let allowSuggestions: Bool
    }

    public struct Option: Codable, Sendable, Hashable {
        public let id: String
        public let text: String
        public let votes: Int
        /// Share of all ballots that selected it, 0…1.
        public let ratio: Double
        public let suggestedBy: String?
    }

    public struct Voter: Codable, Sendable, Hashable {
        public let id: String
        public let name: String?
        /// Yes/no polls: "up" or "down".
        public let vote: String?
        /// Options polls: the option ids.
        public let options: [String]?
    }

    /// One choice's bar (the core's `PollBar`, in the API's words).
    public struct Bar: Codable, Sendable, Hashable {
        /// "up" or "down" on a yes/no poll; an option's id otherwise.
        public let choice: String
        public let votes: Int
        /// Its votes over the ballots cast, 0…1: the percent printed beside it (shares may add up to
        /// more than 1 where a ballot selects several options).
        public let share: Double
        /// Starred as the winner: closed, and leading alone.
        public let winner: Bool

        init(_ bar: PollBar) { (choice, votes, share, winner) = (bar.choice, bar.votes, bar.share, bar.winner) }
    }

    /// Where the poll stands.
    public enum Phase: String, Codable, Sendable, Hashable {
        case open
        /// Past its closing time, the creator's close not here yet.
        case closing
        /// Closed by its creator: final.
        case closed
        /// Its creator signed two histories before closing it (PROTOCOL.md §4.4): no result is final.
        case disputed

        init(_ phase: PollPhase) {
            self =
                switch phase {
                case .open: .open
                case .closing: .closing
                case .closed: .closed
                case .disputed: .disputed
                }
        }
    }

    /// Where this user's latest ballot stands against the poll's close.
    public enum Standing: String, Codable, Sendable, Hashable {
        /// Counted: the poll is open, or the close covers it.
        case counted
        /// Sent after the creator's close (or not received by the creator before it): not counted.
        case afterClose

        init(_ standing: BallotStanding) {
            self =
                switch standing {
                case .counted: .counted
                case .afterClose: .afterClose
                }
        }
    }

    public struct Answer: Codable, Sendable, Hashable {
        public let author: String?
        public let authorName: String?
        public let text: String
        public let timestampMillis: Int64
    }

    public let id: String
    public let chat: String
    public let kind: String
    public let question: String
    public let description: String?
    public let author: String
    public let authorName: String?
    public let createdAtMillis: Int64
    /// The poll message's Lamport clock and sequence: with `author`, its place in the chat's history.
    public let lamport: UInt64
    public let sequence: UInt64
    /// The clock the poll sorts by in history, as `MessageView.historyClock`.
    public let historyClock: UInt64
    /// The poll message's number on this node, as `MessageView.localNumber` (read markers count by it).
    public let localNumber: Int64
    public let settings: Settings?
    public let up: Int?
    public let down: Int?
    public let options: [Option]?
    public let totalVotes: Int
    /// The options with the most votes (POLLS.md: every one of a tie); empty while nobody voted.
    public let winners: [String]
    /// What to draw, in the order shown (yes/no: up, then down): each choice's share of the ballots
    /// cast and whether it is starred as the winner (`PollBar`: closed, and leading alone).
    public let bars: [Bar]
    public let ownVotes: [String]
    /// The yes/no vote recorded in this node's local data (kept for BBM parity).
    public let myVote: String?
    /// Closed by its creator: final.
    public let isClosed: Bool
    /// Closes its creator sent after the one that counts: they change nothing (absent when none).
    public let laterCloses: Int?
    /// open, closing (past its closing time, the creator's close not here yet) or closed.
    public let phase: Phase
    /// Whether this user's latest ballot counts ("counted") or came after the close ("afterClose").
    public let ownBallot: Standing?
    public let closesAtMillis: Int64?
    public let answersCount: Int
    public let latestAnswers: [Answer]
    public let voters: [Voter]
    /// Set for a secret poll: its electorate and the count's standing. Such a poll never lists voters.
    public let secret: SecretPollView?
    /// Set when members who took part signed two histories (fork proofs, PROTOCOL.md §4.4).
    public let disputes: PollDisputesView?

    /// The poll message's place in the chat's history (`HistoryPosition`), as `MessageView.historyOrder`.
    public var historyOrder: (UInt64, String, UInt64) { (historyClock, author, sequence) }

    public init(_ snapshot: PollSnapshot, names: [PeerID: String], myVote: String?) {
        let poll = snapshot.poll.message
        id = poll.id.hex
        chat = poll.chat.hex
        question = snapshot.question
        author = poll.author.hex
        authorName = names[poll.author]
        createdAtMillis = poll.timestampMillis
        lamport = poll.lamport
        historyClock = snapshot.poll.historyClock
        localNumber = snapshot.poll.localNumber
        sequence = poll.sequence
        ownVotes = snapshot.ownVotes
        isClosed = snapshot.isClosed
        laterCloses = (snapshot.tally?.close ?? snapshot.outcome?.closure).map(\.laterCloses).flatMap {
            $0 > 0 ? $0 : nil
        }
        phase = Phase(snapshot.phase)
        ownBallot = snapshot.ownBallot.map(Standing.init)
        self.myVote = myVote
        switch snapshot.counts {
        case let .yesNo(tally):
            kind = "yesNo"
            (description, settings, options) = (nil, nil, nil)
            closesAtMillis = (try? ParleyCore.Poll(poll))?.closesAtMillis
            (up, down) = (tally.up, tally.down)
            totalVotes = tally.up + tally.down
            winners = tally.up == tally.down ? [] : [tally.up > tally.down ? "up" : "down"]
            bars = PollBar.bars(
                counts: [("up", tally.up), ("down", tally.down)], ballots: tally.up + tally.down,
                closed: snapshot.phase == .closed
            )
            .map(Bar.init)
            (answersCount, latestAnswers) = (0, [])
            voters = tally.ballots.map {
                Voter(id: $0.voter.hex, name: names[$0.voter], vote: $0.choice.rawValue, options: nil)
            }
        case let .options(outcome):
            let spec = outcome.spec
            kind = "options"
            description = spec.description.isEmpty ? nil : spec.description
            settings = Settings(
                maxVotes: spec.unique ? 1 : spec.maxVotes, unique: spec.unique, anonymous: spec.anonymous,
                allowAnswers: spec.allowAnswers, allowSuggestions: spec.allowSuggestions)
            (up, down) = (nil, nil)
            // A secret poll lists no ballots: its share is of the electors counted.
            let cast = snapshot.secret?.tally.counted ?? outcome.ballots.count
            bars = PollBar.bars(
                counts: outcome.options.map { ($0.id, $0.votes) }, ballots: cast, closed: snapshot.phase == .closed
            )
            .map(Bar.init)
            options = zip(outcome.options, bars).map { option, bar in
                Option(
                    id: option.id, text: option.text, votes: option.votes, ratio: bar.share,
                    suggestedBy: option.suggestedBy?.hex)
            }
            totalVotes = outcome.totalVotes
            winners = outcome.winners
            closesAtMillis = spec.closesAtMillis
            answersCount = outcome.answers.count
            latestAnswers = outcome.answers.prefix(5).map {
                Answer(
                    author: spec.anonymous ? nil : $0.author.hex, authorName: spec.anonymous ? nil : names[$0.author],
                    text: $0.text, timestampMillis: $0.timestampMillis)
            }
            voters =
                spec.anonymous
                ? []
                : outcome.ballots.map { Voter(id: $0.voter.hex, name: names[$0.voter], vote: nil, options: $0.options) }
        }
        secret = snapshot.secret.map { SecretPollView($0, names: names) }
        disputes = snapshot.disputes.map { PollDisputesView($0, creator: poll.author, names: names) }
    }
}

/// Who of a poll's members signed two histories: their votes (and, for the creator, its closes)
/// from the fork on count for nothing, on every node holding the proof.
public struct PollDisputesView: Codable, Sendable, Hashable {
    public struct Member: Codable, Sendable, Hashable {
        public let id: String
        public let name: String?
    }

    /// The creator forked before closing the poll: no result is final (`phase` is `disputed`).
    public let creator: Member?
    /// Voters whose ballots count for nothing.
    public let voters: [Member]

    init(_ disputes: PollDisputes, creator: PeerID, names: [PeerID: String]) {
        self.creator = disputes.creatorForked ? Member(id: creator.hex, name: names[creator]) : nil
        voters = disputes.voters.map { Member(id: $0.hex, name: names[$0]) }
    }
}

/// `poll votes --json`: a page of ballots or answers, newest first.
public struct PollVotesView: Codable, Sendable, Hashable {
    public struct Item: Codable, Sendable, Hashable {
        public let author: String?
        public let authorName: String?
        public let options: [String]
        public let text: String?
        public let message: String
        public let timestampMillis: Int64
    }

    public let items: [Item]
    public let nextCursor: String?

    public init(_ page: PollVotePage, names: [PeerID: String]) {
        items = page.items.map {
            Item(
                author: $0.author?.hex, authorName: $0.author.flatMap { names[$0] }, options: $0.options, text: $0.text,
                message: $0.message.hex, timestampMillis: $0.timestampMillis)
        }
        nextCursor = page.nextCursor
    }
}
