import Foundation
import Testing

/// Options polls across three real `parley` nodes: a vote limit, a close, and an expiry.
@Suite(.serialized)
struct OptionsPollProcessTests {
    struct Results: Decodable, Equatable {
        struct Option: Decodable, Equatable { let id: String, text: String, votes: Int }
        let question: String
        let options: [Option]
        let totalVotes: Int
        let winners: [String]
        let isClosed: Bool
        let answersCount: Int
    }

    func results(_ parley: ParleyBinary, _ name: String, _ chat: String, _ poll: String) throws -> Results {
        try JSONDecoder().decode(
            Results.self, from: Data(try parley.client(name, ["poll", "results", chat, poll, "--json"]).utf8))
    }

    @Test func aLimitedPollIsVotedClosedAndIdenticalOnEveryNode() throws {
        // Given three nodes and a poll allowing two choices and answers
        let parley = try ParleyBinary()
        let processes = try MultiProcessTests().setUpThreeNodes(parley, base: Ports.base())
        defer { processes.forEach { $0.terminateAndWait() } }
        let chat = try parley.client("alice", ["chat", "create", "Offsite", "--member", "bob", "--member", "carol"])
        let poll = try parley.client(
            "alice",
            [
                "poll", "create", chat, "Where?", "--option", "Lake", "--option", "Hills", "--option", "Beach",
                "--max-votes", "2", "--allow-answers", "--allow-suggestions",
            ])
        for name in ["bob", "carol"] {
            #expect(
                parley.eventually(name, ["poll", "results", chat, poll]) { _ in true }, "\(name) never got the poll")
        }

        // When they vote within the limit, one tries to exceed it, one suggests, one answers
        try parley.client("alice", ["poll", "vote", chat, poll, "Lake", "Hills"])
        try parley.client("bob", ["poll", "vote", chat, poll, "2"])
        // A third choice.
        #expect(throws: CommandFailed.self) { try parley.client("alice", ["poll", "vote", chat, poll, "Beach"]) }
        try parley.client("carol", ["poll", "suggest", chat, poll, "City"])
        try parley.client("carol", ["poll", "vote", chat, poll, "City"])
        try parley.client("bob", ["poll", "answer", chat, poll, "hills, definitely"])
        // Not the creator.
        #expect(throws: CommandFailed.self) { try parley.client("bob", ["poll", "close", chat, poll]) }
        #expect(
            parley.eventually("alice", ["poll", "results", chat, poll, "--json"]) {
                $0.contains("\"totalVotes\":4") && $0.contains("\"answersCount\":1")
            })
        try parley.client("alice", ["poll", "close", chat, poll])
        // Closed.
        #expect(throws: CommandFailed.self) { try parley.client("carol", ["poll", "vote", chat, poll, "Lake"]) }

        // Then every node shows the same closed poll: Hills wins with 2
        for name in ["alice", "bob", "carol"] {
            #expect(
                parley.eventually(name, ["poll", "results", chat, poll, "--json"]) {
                    $0.contains("\"isClosed\":true") && $0.contains("\"totalVotes\":4")
                })
        }
        let all = try ["alice", "bob", "carol"].map { try results(parley, $0, chat, poll) }
        #expect(all[0] == all[1] && all[1] == all[2])
        #expect(all[0].options.map(\.votes) == [1, 2, 0, 1])
        #expect(all[0].winners == ["2"])
        let page = try parley.client("bob", ["poll", "votes", chat, poll, "--limit", "2", "--json"])
        #expect(page.contains("\"nextCursor\""))
    }

    @Test func aPollClosesOnEveryNodeWhenItsTimeComesWithNoMessage() throws {
        let parley = try ParleyBinary()
        let processes = try MultiProcessTests().setUpThreeNodes(parley, base: Ports.base())
        defer { processes.forEach { $0.terminateAndWait() } }
        let chat = try parley.client("alice", ["chat", "create", "Quick", "--member", "bob", "--member", "carol"])
        // Given a poll that closes in three seconds
        let poll = try parley.client(
            "alice",
            ["poll", "create", chat, "Now?", "--option", "Yes", "--option", "Later", "--unique", "--closes-at", "+3s"])
        #expect(parley.eventually("bob", ["poll", "results", chat, poll]) { _ in true })
        try parley.client("bob", ["poll", "vote", chat, poll, "Yes"])
        try parley.client("bob", ["poll", "vote", chat, poll, "Later"]) // unique: replaces
        // When the time passes, every node calls it closed, and a vote is refused
        for name in ["alice", "bob", "carol"] {
            #expect(
                parley.eventually(name, ["poll", "results", chat, poll, "--json"], seconds: 10) {
                    $0.contains("\"isClosed\":true")
                })
        }
        #expect(throws: CommandFailed.self) { try parley.client("carol", ["poll", "vote", chat, poll, "Yes"]) }
        let all = try ["alice", "bob", "carol"].map { try results(parley, $0, chat, poll) }
        #expect(all.allSatisfy { $0.options.map(\.votes) == [0, 1] })
    }
}
