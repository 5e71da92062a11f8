import Foundation
import Testing

/// Findings 1 and 5 of issue 34 through six real `parley` nodes on loopback: a voter's first relay
/// killed (kill -9) while it holds the envelope can neither keep the ballot out of the creator's
/// batch nor make it come out alone after it (before: the voter's retry was published by itself,
/// seconds after the batch, which named the voter to whoever knew whose envelope it had held).
@Suite(.serialized, .timeLimit(.minutes(3)))
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

    @Test func aFirstRelayKilledWhileHoldingABallotLeavesItInTheCreatorsOneBatch() throws {
        // Given six nodes, a chat of all six made by alice, and her secret poll closing in 12 s
        let parley = try ParleyBinary()
        let base = Ports.base()
        let port = { (name: String) in base + Self.names.firstIndex(of: name)! }
        for name in Self.names { _ = try parley.keygen(name) }
        var nodes: [String: Process] = [:]
        defer { nodes.values.forEach { $0.terminateAndWait() } }
        for name in Self.names {
            nodes[name] = try parley.startNode(name, port: port(name), peers: Self.names.filter { $0 != name }.map(port))
        }
        var ids: [String: String] = [:]
        for name in Self.names {
            ids[name] = (try Self.json(parley.client(name, ["status", "--json"])) as? [String: Any])?["peer"] as? String
            for other in Self.names where other != name {
                try parley.client(name, ["contacts", "add", "\(parley.workspace)/keys/\(other).pub", "--name", other])
            }
        }
        let chat = try parley.client("alice", ["chat", "create", "Board"] + Self.names.dropFirst().flatMap { ["--member", $0] })
        for name in Self.names.dropFirst() {
            #expect(parley.eventually(name, ["messages", chat]) { _ in true }, "\(name) never joined")
        }
        let poll = try parley.client("alice", ["poll", "create", chat, "Raise dues?", "--secret", "--closes-at", "+12s"])
        let results = ["poll", "results", chat, poll, "--json"]
        for name in Self.names.dropFirst() { #expect(parley.eventually(name, results) { _ in true }, "\(name) never got the poll") }

        // When bob votes down, carol and dave up, and the first relay of bob's first path is killed at once
        let cast = try Self.json(parley.client("bob", ["poll", "vote", chat, poll, "down", "--json"])) as? [String: Any] ?? [:]
        let paths = cast["paths"] as? [[String: Any]] ?? []
        #expect(paths.count == 2, "bob's ballot went \(paths.count) way(s): \(cast)")
        let relay = try #require(ids.first { $0.value == paths.first?["firstRelay"] as? String }?.key)
        #expect(relay != "alice")
        kill(nodes[relay]!.processIdentifier, SIGKILL)
        nodes[relay]!.waitUntilExit()
        for name in ["carol", "dave"] where name != relay { try parley.client(name, ["poll", "vote", chat, poll, "up"]) }
        let voters = ["carol", "dave"].filter { $0 != relay }.count + 1

        // Then on every live node the poll closes with every ballot counted, all published by alice in
        // one batch: none alone after it
        let live = Self.names.filter { $0 != relay }
        for name in live {
            #expect(parley.eventually(name, results, seconds: 60) { $0.contains("\"resultsFinal\":true") }, "\(name) never saw the close")
        }
        for name in live {
            let shown = try Self.json(parley.client(name, results)) as? [String: Any] ?? [:]
            #expect(shown["down"] as? Int == 1 && shown["up"] as? Int == voters - 1, "\(name): \(shown)")
            let ballots = Self.objects(
                tagged: "PollSecretBallot", in: try Self.json(parley.client(name, ["messages", chat, "--tag", "PollSecretBallot", "--json"])))
            #expect(ballots.count == voters, "\(name) holds \(ballots.count) ballot messages")
            #expect(ballots.allSatisfy { $0["author"] as? String == ids["alice"] })
            let times = ballots.compactMap { $0["timestampMillis"] as? Int64 ?? ($0["timestampMillis"] as? Int).map(Int64.init) }
            #expect(times.count == voters && (times.max()! - times.min()!) < 1_000, "\(name): ballots published at \(times)")
        }
        let own = try Self.json(parley.client("bob", results)) as? [String: Any] ?? [:]
        #expect((own["secret"] as? [String: Any])?["ownBallot"] as? String == "counted", "bob: \(own)")
    }
}
