import Foundation
import Testing

/// Presence and typing across three real `parley` nodes on 127.0.0.1.
@Suite(.serialized, .processSuiteLimit)
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

    // The 12 s timeout and the at-once `leaving` beat are stepped on a manual clock in
    // PresenceTests and PresenceNodeTests; here the real nodes must show the same outcomes, checked
    // by what the views carry (last-seen times against the kill and stop), not by wall-clock deadlines
    // a loaded machine could miss.
    @Test func aKilledNodeShowsOfflineWhileTheOthersStayOnlineAndAStoppedOneSaysGoodbye() throws {
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
        let killedAtMillis = Int64(Date().timeIntervalSince1970 * 1000)

        // Then alice shows her offline once the presence timeout passes, last seen before the kill,
        // and bob still online
        let offline = parley.eventually("alice", ["members", chat, "--json"], seconds: 60) { output in
            let shown = try? JSONDecoder().decode([Member].self, from: Data(output.utf8))
            return shown?.first { $0.name == "carol" }?.online == false
        }
        #expect(offline, "carol never went offline")
        let shown = try members(parley, "alice", chat)
        let carolLastSeen = try #require(shown.first { $0.name == "carol" }?.lastSeenAt)
        #expect(carolLastSeen <= killedAtMillis, "carol's last beat is dated after her kill")
        #expect(shown.first { $0.name == "bob" }?.online == true)
        #expect(try parley.client("alice", ["members", chat]).contains("carol  offline, last seen "))

        // When bob's node is stopped gracefully (SIGTERM), it says goodbye: the beat that shows him
        // offline is the `leaving` one signed at shutdown, dated after the stop was asked for (a
        // timeout would leave his last `online` beat, signed before it)
        let bob = processes[1]
        let stoppingAtMillis = Int64(Date().timeIntervalSince1970 * 1000)
        bob.terminateAndWait()
        let bobOffline = parley.eventually("alice", ["members", chat, "--json"], seconds: 60) { output in
            let shown = try? JSONDecoder().decode([Member].self, from: Data(output.utf8))
            return shown?.first { $0.name == "bob" }?.online == false
        }
        #expect(bobOffline, "bob never went offline")
        let bobLastSeen = try #require(try members(parley, "alice", chat).first { $0.name == "bob" }?.lastSeenAt)
        #expect(bobLastSeen >= stoppingAtMillis, "bob went offline by the timeout, not by his goodbye")
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
        let open = try InteractiveProcess(
            executable: ParleyBinary.path, arguments: ["open", chat, "--data", parley.data("alice")])
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
