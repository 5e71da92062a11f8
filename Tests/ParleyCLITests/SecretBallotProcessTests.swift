import Foundation
import Testing

/// Findings 1 and 5 of issue 34 through six real `parley` nodes on loopback: a voter's first relay
/// killed (kill -9) while it holds the envelope can neither keep the ballot out of the creator's
/// batch nor make it come out alone after it (before: the voter's retry was published by itself,
/// seconds after the batch, which named the voter to whoever knew whose envelope it had held).
@Suite(.serialized, .processSuiteLimit)
struct SecretBallotProcessTests {
    static let names = ["alice", "bob", "carol", "dave", "erin", "frank"]

    static func json(_ text: String) throws -> Any { try JSONSerialization.jsonObject(with: Data(text.utf8)) }

    /// Every message in `value` (a JSON object at any depth with an author) whose `tag` is `tag`.
    static func objects(tagged tag: String, in value: Any) -> [[String: Any]] {
        if let object = value as? [String: Any] {
            let matches = object["tag"] as? String == tag && object["author"] != nil
            return (matches ? [object] : []) + object.values.flatMap { objects(tagged: tag, in: $0) }
        }
        return (value as? [Any])?.flatMap { objects(tagged: tag, in: $0) } ?? []
    }

    /// Six nodes on loopback (alice … frank), every one a contact of every other, a chat of all six
    /// made by alice, and her secret poll closing in 12 s, held by every node.
    final class Board {
        let parley: ParleyBinary
        var nodes: [String: Process] = [:]
        var ids: [String: String] = [:]
        let chat: String, poll: String

        init() throws {
            parley = try ParleyBinary()
            let base = Ports.base()
            let port = { (name: String) in base + SecretBallotProcessTests.names.firstIndex(of: name)! }
            let names = SecretBallotProcessTests.names
            for name in names { _ = try parley.keygen(name) }
            for name in names {
                nodes[name] = try parley.startNode(name, port: port(name), peers: names.filter { $0 != name }.map(port))
            }
            for name in names {
                ids[name] =
                    (try SecretBallotProcessTests.json(parley.client(name, ["status", "--json"])) as? [String: Any])?[
                        "peer"] as? String
                for other in names where other != name {
                    try parley.client(
                        name, ["contacts", "add", "\(parley.workspace)/keys/\(other).pub", "--name", other])
                }
            }
            chat = try parley.client(
                "alice", ["chat", "create", "Board"] + names.dropFirst().flatMap { ["--member", $0] })
            for name in names.dropFirst() {
                #expect(parley.eventually(name, ["messages", chat]) { _ in true }, "\(name) never joined")
            }
            poll = try parley.client(
                "alice", ["poll", "create", chat, "Raise dues?", "--secret", "--closes-at", "+12s"])
            for name in names.dropFirst() {
                #expect(parley.eventually(name, results) { _ in true }, "\(name) never got the poll")
            }
        }

        var results: [String] { ["poll", "results", chat, poll, "--json"] }

        deinit { nodes.values.forEach { $0.terminateAndWait() } }

        /// The keys of the ballots `name` holds as a publisher (`heldBallot.` + linking tag).
        func heldBallots(_ name: String) throws -> Set<String> {
            let listed = try SecretBallotProcessTests.json(parley.client(name, ["local", "list", poll, "--json"]))
            let keys =
                (listed as? [String: Any]).map { Array($0.keys) } ?? (listed as? [[String: Any]])?.compactMap {
                    $0["key"] as? String
                } ?? []
            return Set(keys.filter { $0.hasPrefix("heldBallot.") })
        }
    }

    @Test func aFirstRelayKilledWhileHoldingABallotLeavesItInTheCreatorsOneBatch() throws {
        // Given six nodes, a chat of all six made by alice, and her secret poll closing in 12 s
        let board = try Board()
        let (parley, chat, poll, results, ids) = (board.parley, board.chat, board.poll, board.results, board.ids)

        // When bob votes down, carol and dave up, and the first relay of bob's first path is killed at once
        let vote =
            try Self.json(parley.client("bob", ["poll", "vote", chat, poll, "down", "--json"])) as? [String: Any] ?? [:]
        let cast = vote["secretBallot"] as? [String: Any] ?? [:]
        let paths = cast["paths"] as? [[String: Any]] ?? []
        #expect(paths.count == 2, "bob's ballot went \(paths.count) way(s): \(cast)")
        let relay = try #require(ids.first { $0.value == paths.first?["firstRelay"] as? String }?.key)
        #expect(relay != "alice")
        kill(board.nodes[relay]!.processIdentifier, SIGKILL)
        board.nodes[relay]!.waitUntilExit()
        for name in ["carol", "dave"] where name != relay {
            try parley.client(name, ["poll", "vote", chat, poll, "up"])
        }
        let voters = ["carol", "dave"].filter { $0 != relay }.count + 1

        // Then on every live node the poll closes with every ballot counted, all published by alice in
        // one batch: none alone after it
        let live = Self.names.filter { $0 != relay }
        for name in live {
            #expect(
                parley.eventually(name, results, seconds: 60) { $0.contains("\"resultsFinal\":true") },
                "\(name) never saw the close")
        }
        for name in live {
            let shown = try Self.json(parley.client(name, results)) as? [String: Any] ?? [:]
            #expect(shown["down"] as? Int == 1 && shown["up"] as? Int == voters - 1, "\(name): \(shown)")
            let ballots = Self.objects(
                tagged: "PollSecretBallot",
                in: try Self.json(parley.client(name, ["messages", chat, "--tag", "PollSecretBallot", "--json"])))
            #expect(ballots.count == voters, "\(name) holds \(ballots.count) ballot messages")
            #expect(ballots.allSatisfy { $0["author"] as? String == ids["alice"] })
            let times = ballots.compactMap {
                $0["timestampMillis"] as? Int64 ?? ($0["timestampMillis"] as? Int).map(Int64.init)
            }
            #expect(
                times.count == voters && (times.max()! - times.min()!) < 1_000, "\(name): ballots published at \(times)"
            )
        }
        let own = try Self.json(parley.client("bob", results)) as? [String: Any] ?? [:]
        #expect((own["secret"] as? [String: Any])?["ownBallot"] as? String == "counted", "bob: \(own)")
    }

    @Test func noPublisherHoldsABallotBeforeTheClosingTimeAndAllDoJustAfterIt() throws {
        // Given six nodes and alice's secret poll closing in 12 s; bob, carol and dave vote at once
        let board = try Board()
        let started = Date()
        for name in ["bob", "carol", "dave"] {
            try board.parley.client(name, ["poll", "vote", board.chat, board.poll, "up"])
        }

        // Then 8 s after the votes, before the closing time, no node holds any ballot as a publisher:
        // every envelope waits at its first relay (before issue 34 they were passed on within 5 s,
        // so a publisher could match their arrival to a voter's traffic)
        Thread.sleep(until: started.addingTimeInterval(8))
        for name in Self.names {
            #expect(try board.heldBallots(name).isEmpty, "\(name) holds a ballot before the closing time")
        }

        // and just after the closing time the publishers hold every ballot at once
        var held = Set<String>()
        let deadline = started.addingTimeInterval(20)
        while held.count < 3, Date() < deadline {
            held = try Self.names.reduce(into: Set<String>()) { $0.formUnion(try board.heldBallots($1)) }
            Thread.sleep(forTimeInterval: 0.2)
        }
        #expect(held.count == 3, "publishers held \(held.count) distinct ballots after the closing time")
        #expect(Date().timeIntervalSince(started) > 11, "ballots reached publishers before the closing time")
    }
}
