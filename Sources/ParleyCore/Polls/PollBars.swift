/// How every front end draws a poll's counts (the full screen, `parley poll results`, the web page):
/// one bar per choice, filled to its share of the ballots cast, and a star on the winner. The rule
/// lives here, once, and reaches the page through `PollResultsView.bars`.
public struct PollBar: Codable, Sendable, Hashable {
    /// "up" or "down" on a yes/no poll; an option's id otherwise.
    public let choice: String
    public let votes: Int
    /// Its votes over the ballots cast, 0…1 (0 while nobody has voted): the percent printed beside
    /// it. Where a ballot may select several options the shares add up to more than 1, so a bar is
    /// never scaled to the leader: a 1–1 yes/no poll is two half bars.
    public let share: Double
    /// Starred as the winner: only once the poll is closed (an open poll's leader may still lose), and
    /// only a choice with more votes than every other; a tie at the top stars none, on either kind.
    public let winner: Bool

    public init(choice: String, votes: Int, share: Double, winner: Bool) {
        self.choice = choice
        self.votes = votes
        self.share = share
        self.winner = winner
    }

    /// The bars for `counts` (in the order they are shown), `ballots` the ballots cast (on a yes/no
    /// poll, up + down; on an options poll, the voters counted), and whether the poll is closed.
    public static func bars(counts: [(choice: String, votes: Int)], ballots: Int, closed: Bool) -> [PollBar] {
        let top = counts.map(\.votes).max() ?? 0
        let leaders = counts.filter { $0.votes == top }.count
        let soleLeader = closed && top > 0 && leaders == 1
        return counts.map { count in
            let share = ballots > 0 ? min(max(Double(count.votes) / Double(ballots), 0), 1) : 0
            return PollBar(
                choice: count.choice, votes: count.votes, share: share, winner: soleLeader && count.votes == top)
        }
    }
}
