import Foundation
import Testing

/// Real `parley` processes on 127.0.0.1, driven only through the CLI, as a user would.
@Suite(.serialized)
struct MultiProcessTests {
    struct Results: Decodable, Equatable {
        let up: Int, down: Int
        let voters: [Voter]
        struct Voter: Decodable, Equatable { let id: String, vote: String }
    }

    func setUpThreeNodes(_ parley: ParleyBinary, base: Int) throws -> [Process] {
        for name in ["alice", "bob", "carol"] { _ = try parley.keygen(name) }
        let ports = ["alice": base, "bob": base + 1, "carol": base + 2]
        var processes: [Process] = []
        for (name, port) in ports.sorted(by: { $0.key < $1.key }) {
            processes.append(try parley.startNode(name, port: port, peers: ports.values.filter { $0 != port }))
        }
        for me in ports.keys {
            for other in ports.keys where other != me {
                try parley.client(me, ["contacts", "add", "\(parley.workspace)/keys/\(other).pub", "--name", other])
            }
        }
        return processes
    }

    @Test func threeNodesVoteAndPrintIdenticalResults() throws {
        let parley = try ParleyBinary()
        let processes = try setUpThreeNodes(parley, base: Ports.base())
        defer { processes.forEach { $0.terminateAndWait() } }

        let chat = try parley.client("alice", ["chat", "create", "Lunch", "--member", "bob", "--member", "carol"])
        let poll = try parley.client("alice", ["poll", "create", chat, "Pizza?"])
        for name in ["bob", "carol"] {
            #expect(
                parley.eventually(name, ["poll", "results", chat, poll]) { _ in true }, "\(name) never got the poll")
        }
        try parley.client("alice", ["poll", "vote", chat, poll, "up"])
        try parley.client("bob", ["poll", "vote", chat, String(poll.prefix(10)), "up"]) // a unique prefix is enough
        try parley.client("carol", ["poll", "vote", chat, poll, "down"])
        // A second vote is a conflict (exit 5), an unknown message is not found (exit 3), bad input invalid (exit 2)
        let second = #expect(throws: CommandFailed.self) {
            try parley.client("bob", ["poll", "vote", chat, poll, "down"])
        }
        #expect(second?.status == 5)
        let unknown = #expect(throws: CommandFailed.self) {
            try parley.client("bob", ["poll", "results", chat, "abcdef12"])
        }
        #expect(unknown?.status == 3)
        let sideways = #expect(throws: CommandFailed.self) {
            try parley.client("bob", ["poll", "vote", chat, poll, "sideways"])
        }
        #expect(sideways?.status == 2)

        var results: [Results] = []
        for name in ["alice", "bob", "carol"] {
            #expect(
                parley.eventually(name, ["poll", "results", chat, poll, "--json"]) {
                    $0.contains("\"down\":1") && $0.contains("\"up\":2")
                })
            let json = try parley.client(name, ["poll", "results", chat, poll, "--json"])
            results.append(try JSONDecoder().decode(Results.self, from: Data(json.utf8)))
        }
        #expect(results[0] == results[1] && results[1] == results[2])
        #expect((results[0].up, results[0].down, results[0].voters.count) == (2, 1, 3))
    }

    @Test func aNodeKilledWithSigkillCatchesUpAfterRestartAndLosesNothing() throws {
        let parley = try ParleyBinary()
        let base = Ports.base()
        var processes = try setUpThreeNodes(parley, base: base)
        defer { processes.forEach { $0.terminateAndWait() } }
        let chat = try parley.client("alice", ["chat", "create", "Crash", "--member", "bob", "--member", "carol"])
        for n in 0..<10 { try parley.client("alice", ["send", chat, "before \(n)"]) }
        #expect(
            parley.eventually("carol", ["messages", chat, "--json"]) {
                $0.components(separatedBy: "\"tag\":\"Text\"").count - 1 == 10
            })

        // When carol's node is killed with SIGKILL midway, and messages keep coming
        let carol = processes[2]
        kill(carol.processIdentifier, SIGKILL)
        carol.waitUntilExit()
        for n in 0..<10 { try parley.client("alice", ["send", chat, "during \(n)"]) }
        for n in 0..<5 { try parley.client("bob", ["send", chat, "bob \(n)"]) }

        // Then, restarted on the same data, it catches up and keeps everything it had
        try? FileManager.default.removeItem(atPath: parley.data("carol") + "/control.sock")
        processes[2] = try parley.startNode("carol", port: base + 2, peers: [base, base + 1])
        let caughtUp = parley.eventually("carol", ["messages", chat, "--json"], seconds: 30) {
            $0.components(separatedBy: "\"tag\":\"Text\"").count - 1 == 25
        }
        #expect(caughtUp)
        let texts = try parley.client("carol", ["messages", chat])
        #expect(texts.contains("before 0") && texts.contains("during 9") && texts.contains("bob 4"))
    }

    @Test func clientCommandsFailWithOneClearLine() throws {
        let parley = try ParleyBinary()
        let failure = #expect(throws: CommandFailed.self) { try parley.client("nobody", ["chat", "list"]) }
        #expect(failure?.stderr.contains("no node is running") == true)
        #expect(failure?.stderr.split(separator: "\n").count == 1)
        _ = try parley.keygen("dave")
        chmod("\(parley.workspace)/keys/dave.key", 0o644)
        let refused = try parley.runBounded([
            "node", "--key", "\(parley.workspace)/keys/dave.key", "--data", parley.data("dave"),
        ])
        #expect(refused.status.map { $0 != 0 } == true, "a world-readable key was accepted")
        #expect(refused.stderr.contains("chmod 600"))
    }
}
