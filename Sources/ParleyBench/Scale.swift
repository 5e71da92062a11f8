/// Every size the benchmark uses; `--quick` scales them all down to a smoke run of a few seconds.
struct Scale: Sendable {
    let name: String
    /// How long each micro benchmark runs.
    let microDuration: Duration
    let udpDatagrams: Int
    let sqliteRows: Int
    let sqliteLookups: Int
    /// Messages sent in each end-to-end throughput run.
    let throughputMessages: Int
    let latencySamples: Int
    let catchUpMessages: Int
    let storeMessages: Int
    let votes: Int
    /// Members who cast the votes (a chat has at most 512 members, so each votes several times: 40
    /// times in both runs, so the quick tally reads the same share of ballots to votes as the full one).
    let voters: Int
    let repetitions: Int
    /// The chat whose first screen the web page loads, and the votes timed from store to bar: 200 in
    /// the full run, so that their p99 is not simply the slowest of them (of 50, it was).
    let webMessages: Int
    let webVotes: Int
    /// Members of the idle chat, and how long its CPU is counted.
    let idleMembers: Int
    let idleDuration: Duration
    /// Electors of the secret poll counted from its publication: the 200 in the full run.
    var secretElectors: Int { name == "full" ? 200 : 50 }
    /// The file phase's file: 100 MiB in the full run.
    var fileBytes: Int { name == "full" ? 100 << 20 : 16 << 20 }
    /// Messages toxcore sends in each of its modes: 20,000 in both runs, as fewer would measure its
    /// start-up more than its rate (its lossless packets ramp up from 4 a second).
    var toxcoreMessages: Int { 20_000 }

    static let full = Scale(
        name: "full", microDuration: .seconds(2), udpDatagrams: 1_000_000, sqliteRows: 200_000, sqliteLookups: 50_000,
        throughputMessages: 30_000, latencySamples: 2_000, catchUpMessages: 100_000, storeMessages: 1_000_000,
        votes: 10_000, voters: 250, repetitions: 9, webMessages: 10_000, webVotes: 200,
        idleMembers: 30, idleDuration: .seconds(20))

    static let quick = Scale(
        name: "quick", microDuration: .milliseconds(200), udpDatagrams: 50_000, sqliteRows: 20_000,
        sqliteLookups: 5_000,
        throughputMessages: 2_000, latencySamples: 200, catchUpMessages: 5_000, storeMessages: 20_000,
        votes: 1_000, voters: 25, repetitions: 3, webMessages: 1_000, webVotes: 10,
        idleMembers: 30, idleDuration: .seconds(5))
}
