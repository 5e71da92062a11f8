import Foundation
import Testing

/// `parley open CHAT`, typed into like a terminal: alice and bob on loopback, bob's session open.
@Suite(.processSuiteLimit)
struct OpenSessionTests {
    /// Two nodes in one chat, and `parley open` running for bob once he holds the chat.
    struct Session {
        let parley: ParleyBinary
        let chat: String
        let open: InteractiveProcess
        let nodes: [Process]

        static func start() throws -> Session {
            let parley = try ParleyBinary()
            let base = Ports.base()
            for name in ["alice", "bob"] { _ = try parley.keygen(name) }
            var nodes: [Process] = []
            var open: InteractiveProcess?
            do {
                nodes.append(try parley.startNode("alice", port: base, peers: [base + 1]))
                nodes.append(try parley.startNode("bob", port: base + 1, peers: [base]))
                try parley.client("alice", ["contacts", "add", "\(parley.workspace)/keys/bob.pub", "--name", "bob"])
                try parley.client("bob", ["contacts", "add", "\(parley.workspace)/keys/alice.pub", "--name", "alice"])
                let chat = try parley.client("alice", ["chat", "create", "Open", "--member", "bob"])
                try #require(parley.eventually("bob", ["messages", chat]) { _ in true }, "bob never got the invite")
                let started = try InteractiveProcess(
                    executable: ParleyBinary.path, arguments: ["open", chat, "--data", parley.data("bob")])
                open = started
                try #require(started.waitFor { $0.contains("type a message") }, "open printed: \(started.transcript)")
                return Session(parley: parley, chat: chat, open: started, nodes: nodes)
            } catch {
                open?.stop()
                nodes.forEach { $0.terminateAndWait() }
                throw error
            }
        }

        func stop() {
            open.stop()
            nodes.forEach { $0.terminateAndWait() }
        }

        func occurrences(of text: String) -> Int { open.transcript.components(separatedBy: text).count - 1 }
    }

    @Test func showsThePeersTextLinksAndCustomLiveButNotUnknownTags() throws {
        let session = try Session.start()
        defer { session.stop() }
        let (parley, chat, open) = (session.parley, session.chat, session.open)

        // When alice writes, bob's open session shows it as it arrives
        try parley.client("alice", ["send", chat, "hello bob"])
        #expect(open.waitFor { $0.contains("alice: hello bob") }, "\(open.transcript)")

        // Given a message with a tag no one shows stored at bob, then custom JSON and a Text after it
        try parley.client("alice", ["send", chat, "sticker payload", "--tag", "Sticker"])
        #expect(parley.eventually("bob", ["messages", chat, "--tag", "Sticker"]) { $0.contains("sticker payload") })
        try parley.client("alice", ["send", chat, "--custom", #"{"k":1}"#])
        try parley.client("alice", ["send", chat, "after sticker https://example.org"])

        // Then the custom message and the Text (a link) appear, and the unknown tag, stored before them, was not shown
        #expect(open.waitFor { $0.contains("alice: after sticker https://example.org [1 link]") }, "\(open.transcript)")
        #expect(open.transcript.contains(#"alice <Custom>: {"k":1}"#), "\(open.transcript)")
        #expect(!open.transcript.contains("sticker payload"))
    }

    @Test func typedLinesAreSentUnknownCommandsAreReportedAndQuitEndsTheSession() throws {
        let session = try Session.start()
        defer { session.stop() }
        let (parley, chat, open) = (session.parley, session.chat, session.open)

        // When bob types a line, alice receives it as a Text message
        try open.type("hi from the terminal")
        #expect(
            parley.eventually("alice", ["messages", chat, "--tag", "Text"]) { $0.contains("bob: hi from the terminal") }
        )

        // When bob types an unknown command, one error line is printed and the session goes on
        try open.type("/foo bar")
        #expect(open.waitFor { $0.contains("error: unknown command /foo") }, "\(open.transcript)")
        try open.type("still here")
        #expect(parley.eventually("alice", ["messages", chat]) { $0.contains("bob: still here") })
        #expect(!(try parley.client("alice", ["messages", chat])).contains("/foo"))

        // When bob types /quit, open exits successfully
        try open.type("/quit")
        #expect(open.waitForExit() == 0, "\(open.transcript)")
    }

    @Test func pollCommandsShowLiveCountsThatFollowTheVotes() throws {
        let session = try Session.start()
        defer { session.stop() }
        let (parley, chat, open) = (session.parley, session.chat, session.open)

        // When bob creates a poll from the terminal, it is shown with its counts
        try open.type("/poll Pizza on Friday?")
        #expect(open.waitFor { $0.contains("by bob: Pizza on Friday?\n  up 0  down 0") }, "\(open.transcript)")
        let match = try #require(open.transcript.firstMatch(of: #/poll ([0-9a-f]{12}) by bob: Pizza on Friday\?/#))
        let poll = String(match.output.1)

        // When alice votes up, the counts update live
        #expect(parley.eventually("alice", ["poll", "results", chat, poll]) { $0.contains("Pizza on Friday?") })
        try parley.client("alice", ["poll", "vote", chat, poll, "up"])
        #expect(open.waitFor { $0.contains("up 1  down 0\n  voters: alice up") }, "\(open.transcript)")

        // When bob votes down from the terminal, his vote counts here and reaches alice
        try open.type("/vote \(poll) down")
        #expect(open.waitFor { $0.contains("up 1  down 1") }, "\(open.transcript)")
        #expect(parley.eventually("alice", ["poll", "results", chat, poll, "--json"]) { $0.contains("\"down\":1") })

        // When bob asks for the results, they are printed once more
        let shown = session.occurrences(of: "up 1  down 1")
        try open.type("/results \(poll)")
        #expect(open.waitFor { _ in session.occurrences(of: "up 1  down 1") > shown }, "\(open.transcript)")
    }

    @Test func optionsPollsShowBarsOwnVotesAndWinnersAndTakeEveryPollCommand() throws {
        let session = try Session.start()
        defer { session.stop() }
        let (parley, chat, open) = (session.parley, session.chat, session.open)

        // When bob creates an options poll from the terminal, it shows as empty bars
        try open.type("/poll Tea or coffee? | Tea | Coffee")
        #expect(open.waitFor { $0.contains("[1] ···················· 0 (0%) Tea") }, "\(open.transcript)")
        let match = try #require(open.transcript.firstMatch(of: #/poll ([0-9a-f]{12}) by bob: Tea or coffee\?/#))
        let poll = String(match.output.1)

        // When bob votes Coffee, his vote is marked and the line says what he did; when alice votes Coffee
        // too, the bar stays full (the share of the ballots), and no star while the poll is open
        try open.type("/vote \(poll) Coffee")
        #expect(open.waitFor { $0.contains("*[2] ████████████████████ 1 (100%) Coffee\n") }, "\(open.transcript)")
        #expect(open.waitFor { $0.contains("voted Coffee on poll \(poll) (id ") }, "\(open.transcript)")
        #expect(parley.eventually("alice", ["poll", "vote", chat, poll, "2"]) { _ in true })
        #expect(open.waitFor { $0.contains("2 (100%) Coffee\n") }, "\(open.transcript)")

        // When bob unvotes, and then closes his poll, both show live, the sole leader starred once closed;
        // a vote after the close is refused
        try open.type("/unvote \(poll)")
        #expect(open.waitFor { $0.contains(" [2] ████████████████████ 1 (100%) Coffee\n") }, "\(open.transcript)")
        try open.type("/close \(poll)")
        #expect(open.waitFor { $0.contains("Tea or coffee? [closed]") }, "\(open.transcript)")
        #expect(open.waitFor { $0.contains(" [2] ████████████████████ 1 (100%) Coffee ★") }, "\(open.transcript)")
        #expect(!open.transcript.contains("(0%) Tea ★"), "\(open.transcript)")
        try open.type("/vote \(poll) Tea")
        #expect(open.waitFor { $0.contains("is closed") }, "\(open.transcript)")
        try open.type("/answer \(poll) nice")
        #expect(open.waitFor { $0.contains("does not take answers") || $0.contains("is closed") }, "\(open.transcript)")
    }

    @Test func olderLoadsThePageBeforeTheBacklogOnDemand() throws {
        let session = try Session.start()
        defer { session.stop() }
        let (parley, chat) = (session.parley, session.chat)
        // Given 60 messages at bob, more than the 50 a new session shows
        for index in 1...60 { try parley.client("alice", ["send", chat, "note \(index)"]) }
        #expect(parley.eventually("bob", ["messages", chat, "--limit", "1"]) { $0.contains("note 60") })
        let open = try InteractiveProcess(
            executable: ParleyBinary.path, arguments: ["open", chat, "--data", parley.data("bob")])
        defer { open.stop() }
        #expect(open.waitFor { $0.contains("note 60") }, "\(open.transcript)")
        #expect(!open.transcript.contains("note 10\n"))
        // When bob asks for older messages, then again
        try open.type("/older")
        #expect(open.waitFor { $0.contains("-- end of older messages --") }, "\(open.transcript)")
        try open.type("/older")
        #expect(open.waitFor { $0.contains("(no older messages)") }, "\(open.transcript)")
        // Then the first page held exactly the ten before the backlog, oldest first
        let older = open.transcript.components(separatedBy: "-- 10 older message(s) --").last ?? ""
        let notes = older.components(separatedBy: "\n").compactMap { line in
            line.range(of: "note ").map { String(line[$0.upperBound...]) }
        }
        #expect(Array(notes.prefix(10)) == (1...10).map(String.init))
    }
}
