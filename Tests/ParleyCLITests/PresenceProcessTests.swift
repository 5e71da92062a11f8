import Foundation
import Testing

/// Presence and typing across three real `parley` nodes on 127.0.0.1.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct PresenceProcessTests {
    struct Member: Decodable {
        let id: String
        let name: String?
        let online: Bool
        let lastSeenAt: Int64?
        let you: Bool
    }

    func members(_ parley: ParleyBinary, _ name: String, _ chat: String) throws -> [Member] {
        try JSONDecoder().decode([Member].self, from: Data(try parley.client(name, ["members", chat, "--json"]).utf8))
    }

    @Test func aKilledNodeShowsOfflineWithinFifteenSecondsWhileTheOthersStayOnline() throws {
        // Given three nodes in one chat
        let parley = try ParleyBinary()
        let processes = try MultiProcessTests().setUpThreeNodes(parley, base: Ports.base())
        defer { processes.forEach { $0.terminateAndWait() } }
        let chat = try parley.client("alice", ["chat", "create", "Here", "--member", "bob", "--member", "carol"])

        // Then each one soon shows all three online, sorted by name, itself marked
        for name in ["alice", "bob", "carol"] {
            let allOnline = parley.eventually(name, ["members", chat, "--json"], seconds: 30) { output in
                (try? JSONDecoder().decode([Member].self, from: Data(output.utf8)))?.allSatisfy(\.online) == true
            }
            #expect(allOnline, "\(name) never showed everyone online")
            let shown = try members(parley, name, chat)
            #expect(shown.map(\.name) == ["alice", "bob", "carol"])
            #expect(shown.filter(\.you).map(\.name) == [name])
        }
        #expect(try parley.client("alice", ["members", chat]).contains("bob  online"))

        // When carol's node is killed with SIGKILL (no goodbye)
        let carol = processes[2]
        kill(carol.processIdentifier, SIGKILL)
        carol.waitUntilExit()
        let killedAt = Date()

        // Then alice shows her offline, with a last-seen time, within 15 s (the presence timeout
        // is 12 s), and bob still online
        let offline = parley.eventually("alice", ["members", chat, "--json"], seconds: 30) { output in
            let shown = try? JSONDecoder().decode([Member].self, from: Data(output.utf8))
            return shown?.first { $0.name == "carol" }?.online == false
        }
        let took = Date().timeIntervalSince(killedAt)
        #expect(offline, "carol never went offline")
        #expect(took < 15, "carol showed offline only after \(took) s")
        let shown = try members(parley, "alice", chat)
        #expect(shown.first { $0.name == "carol" }?.lastSeenAt != nil)
        #expect(shown.first { $0.name == "bob" }?.online == true)
        #expect(try parley.client("alice", ["members", chat]).contains("carol  offline, last seen "))

        // When bob's node is stopped gracefully (SIGTERM), it says goodbye: alice shows him offline
        // well before the 12 s presence timeout could have
        let bob = processes[1]
        bob.terminateAndWait()
        let stoppedAt = Date()
        let bobOffline = parley.eventually("alice", ["members", chat, "--json"], seconds: 30) { output in
            let shown = try? JSONDecoder().decode([Member].self, from: Data(output.utf8))
            return shown?.first { $0.name == "bob" }?.online == false
        }
        let bobTook = Date().timeIntervalSince(stoppedAt)
        #expect(bobOffline, "bob never went offline")
        #expect(bobTook < 5, "bob showed offline only after \(bobTook) s") // by the timeout it would be at least 7 s
    }

    @Test func typingOnBobShowsInAlicesOpenSessionAndAStopShowsNothing() throws {
        // Given alice and bob in a chat, with alice's `parley open` running
        let parley = try ParleyBinary()
        let processes = try MultiProcessTests().setUpThreeNodes(parley, base: Ports.base())
        defer { processes.forEach { $0.terminateAndWait() } }
        let chat = try parley.client("alice", ["chat", "create", "Typing", "--member", "bob", "--member", "carol"])
        for name in ["bob", "carol"] {
            try #require(parley.eventually(name, ["messages", chat]) { _ in true }, "\(name) never got the invite")
        }
        let open = try InteractiveProcess(executable: ParleyBinary.path, arguments: ["open", chat, "--data", parley.data("alice")])
        defer { open.stop() }
        try #require(open.waitFor { $0.contains("type a message") }, "open printed: \(open.transcript)")

        // When bob says he is typing (sent to connected members: retried until alice's session is up)
        #expect(parley.eventually("bob", ["typing", chat, "--json"]) { $0.contains("\"recipients\":2") })

        // Then alice's session shows it
        #expect(open.waitFor { $0.contains("bob is typing…") }, "\(open.transcript)")

        // When carol types too, both are named; when both stop, nothing more is printed
        try parley.client("carol", ["typing", chat])
        #expect(open.waitFor { $0.contains("bob and carol are typing…") }, "\(open.transcript)")
        try parley.client("bob", ["typing", chat, "--stop"])
        #expect(open.waitFor { $0.contains("carol is typing…") }, "\(open.transcript)")
        try parley.client("carol", ["typing", chat, "--stop"])
        try parley.client("bob", ["send", chat, "done typing"])
        #expect(open.waitFor { $0.contains("bob: done typing") }, "\(open.transcript)")
        let afterStop = open.transcript.components(separatedBy: "carol is typing…").last ?? ""
        #expect(!afterStop.contains("typing…"), "\(open.transcript)")
    }
}
