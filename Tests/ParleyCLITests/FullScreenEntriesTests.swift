import Foundation
import Testing

/// The full screen's entries as a user targets them: each with its time and a short id the commands
/// take, replies under a quote of what they answer, `/results` as `parley poll results` prints it,
/// and own messages' delivery ticks. Bob's `parley open` in an 80×24 tmux pane, alice on the CLI.
@Suite(
    .processSuiteLimit,
    .enabled(if: TmuxPane.executable != nil, "tmux is not installed: the full-screen tests need it"))
struct FullScreenEntriesTests {
    struct Message: Decodable {
        let id: String
        let author: String
        let authorName: String?
        let text: String
        let timestampMillis: Int64
    }

    /// The message pane's rows (columns 19..<63 of an 80-column frame), trailing spaces trimmed.
    static func paneRows(_ screen: String) -> [String] {
        screen.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            let characters = Array(line)
            guard characters.count > 19 else { return "" }
            let row = String(characters[19..<min(63, characters.count)])
            return String(row.reversed().drop { $0 == " " }.reversed())
        }
    }

    /// "14:02", local time, as the screen shows it.
    static func clock(_ millis: Int64) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm"
        return formatter.string(from: Date(timeIntervalSince1970: Double(millis) / 1_000))
    }

    /// The 8-hex id the screen shows before `text`'s author.
    static func shownID(of text: String, in screen: String) -> String? {
        paneRows(screen).lazy.compactMap { row -> String? in
            guard row.contains(text), let match = row.firstMatch(of: #/^\d\d:\d\d ([0-9a-f]{8}) /#) else { return nil }
            return String(match.output.1)
        }.first
    }

    @Test func everyEntryShowsItsTimeAndAShortIdThatTheCommandsAccept() throws {
        let session = try FullScreenTests.Session.start()
        defer { session.stop() }
        let (parley, chat, pane) = (session.parley, session.chat, session.pane)

        // Given alice's message and poll, and bob's own message, on bob's screen
        try parley.client("alice", ["send", chat, "first from alice"])
        let poll = try parley.client("alice", ["poll", "create", chat, "Pizza?"])
        #expect(
            pane.waitFor { $0.contains("alice: first from alice") && $0.contains("alice: Pizza?") }, "\(pane.capture())"
        )
        try pane.type("own words")
        try pane.press("Enter")
        #expect(pane.waitFor { $0.contains("you: own words") }, "\(pane.capture())")

        // Then every entry starts with the time it was written (HH:mm, local) and its id's first 8 hex digits
        let rows = Self.paneRows(pane.capture())
        let messages = try JSONDecoder().decode(
            [Message].self, from: Data(try parley.client("bob", ["messages", chat, "--json"]).utf8))
        let bob = try #require(messages.first { $0.text == "own words" }).author
        for message in messages {
            // Another's name follows its initial (the avatar, on a colour from the peer id); "you" has none.
            let name = message.authorName ?? ""
            let author = message.author == bob ? "you" : "\(name.prefix(1).uppercased()) \(name)"
            let expected =
                message.text.hasPrefix("📊 Pizza?")
                ? "▌ \(Self.clock(message.timestampMillis)) Poll \(message.id.prefix(8)) · \(name): Pizza?"
                : "\(Self.clock(message.timestampMillis)) \(message.id.prefix(8)) \(author): \(message.text)"
            #expect(
                rows.contains { $0.hasPrefix(expected) },
                "no row starts with '\(expected)' in\n\(rows.joined(separator: "\n"))")
        }
        #expect(messages.count == 3, "\(messages.map(\.text))")

        // When bob reacts to alice's message and votes, with the ids the screen shows
        let first = try #require(Self.shownID(of: "alice: first from alice", in: pane.capture()))
        try pane.type("/react \(first) yes")
        try pane.press("Enter")
        try pane.type("/vote \(poll.prefix(8)) up")
        try pane.press("Enter")

        // Then alice's node has the reaction and the vote
        #expect(parley.eventually("alice", ["reactions", chat, first, "--json"]) { $0.contains("\"type\":\"yes\"") })
        #expect(parley.eventually("alice", ["poll", "results", chat, poll]) { $0.contains("up 1  down 0") })

        // When an id prefix matches nothing, the status line says so and the session goes on
        try pane.type("/react 0000 yes")
        try pane.press("Enter")
        #expect(pane.waitFor { $0.contains("no message matches id prefix '0000'") }, "\(pane.capture())")
        try pane.type("still here")
        try pane.press("Enter")
        #expect(pane.waitFor { $0.contains("you: still here") }, "\(pane.capture())")
    }

    @Test func replySendsAReferenceAndShowsUnderAQuoteOfTheMessageItAnswers() throws {
        let session = try FullScreenTests.Session.start()
        defer { session.stop() }
        let (parley, chat, pane) = (session.parley, session.chat, session.pane)

        // Given alice's question on bob's screen
        try parley.client("alice", ["send", chat, "who is in for lunch?"])
        #expect(pane.waitFor { $0.contains("alice: who is in for lunch?") }, "\(pane.capture())")
        let question = try #require(Self.shownID(of: "alice: who is in for lunch?", in: pane.capture()))

        // When bob replies to it with the id the screen shows
        try pane.type("/reply \(question) me, at noon")
        try pane.press("Enter")

        // Then alice's node holds a Text message referencing the question
        #expect(
            parley.eventually("alice", ["messages", chat, "--ref", question, "--json"]) {
                $0.contains("\"text\":\"me, at noon\"") && $0.contains("\"tag\":\"Text\"")
            })
        // and bob's screen shows the reply right under a quote of the question
        #expect(
            pane.waitFor { screen in
                let rows = Self.paneRows(screen)
                guard let reply = rows.firstIndex(where: { $0.contains("you: me, at noon") }), reply > 0 else {
                    return false
                }
                return rows[reply - 1] == "  ↳ alice: who is in for lunch?"
            }, "\(pane.capture())")

        // When alice answers bob's reply from the CLI, bob sees it under a quote of his reply
        let reply = try #require(Self.shownID(of: "you: me, at noon", in: pane.capture()))
        try parley.client("alice", ["send", chat, "great", "--ref", reply])
        #expect(
            pane.waitFor { screen in
                let rows = Self.paneRows(screen)
                guard let answer = rows.firstIndex(where: { $0.contains("alice: great") }), answer > 0 else {
                    return false
                }
                return rows[answer - 1] == "  ↳ you: me, at noon"
            }, "\(pane.capture())")

        // When the message named is unknown or not an id, the status line says so and nothing is sent
        try pane.type("/reply 0000 lost words")
        try pane.press("Enter")
        #expect(pane.waitFor { $0.contains("no message matches id prefix '0000'") }, "\(pane.capture())")
        try pane.type("/reply soon lost words")
        try pane.press("Enter")
        #expect(pane.waitFor { $0.contains("'soon' is not a message id prefix") }, "\(pane.capture())")
        #expect(!(try parley.client("alice", ["messages", chat])).contains("lost words"))
    }

    @Test func resultsShowsThePollsCardAsPollResultsPrintsIt() throws {
        let session = try FullScreenTests.Session.start()
        defer { session.stop() }
        let (parley, chat, pane) = (session.parley, session.chat, session.pane)

        // Given alice's poll with her vote up, and bob's vote down from the screen
        let poll = try parley.client("alice", ["poll", "create", chat, "Pizza?"])
        try parley.client("alice", ["poll", "vote", chat, poll, "up"])
        #expect(pane.waitFor { $0.contains("alice: Pizza?") && $0.contains("1 vote") }, "\(pane.capture())")
        try pane.type("/vote \(poll.prefix(8)) down")
        try pane.press("Enter")
        #expect(pane.waitFor { $0.contains("2 votes") }, "\(pane.capture())")

        // When bob asks for its results
        try pane.type("/results \(poll.prefix(8))")
        try pane.press("Enter")

        // Then the screen shows every line `parley poll results` prints for bob: voters, and his own ballot
        let printed = try parley.client("bob", ["poll", "results", chat, poll]).split(separator: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(
            printed.contains { $0.hasPrefix("voters: ") && $0.contains("alice up") && $0.contains("bob down") },
            "\(printed)")
        #expect(printed.contains("you voted down"), "\(printed)")
        #expect(
            pane.waitFor { screen in
                let notice = Self.paneRows(screen).filter { $0.hasPrefix("┆ ") }.map {
                    $0.dropFirst(2).trimmingCharacters(in: .whitespaces)
                }
                return notice == printed
            }, "\(pane.capture())")

        // When the poll named is unknown, the status line says so
        try pane.type("/results 0000")
        try pane.press("Enter")
        #expect(pane.waitFor { $0.contains("no message matches id prefix '0000'") }, "\(pane.capture())")
    }

    @Test func ownMessagesShowDeliveredThenReadTicksAndSentWhileNoOneHasThem() throws {
        let session = try FullScreenTests.Session.start()
        defer { session.stop() }
        let (parley, chat, pane) = (session.parley, session.chat, session.pane)

        // When bob writes while alice is online, it shows delivered; alice's message shows no ticks
        try parley.client("alice", ["send", chat, "from alice"])
        try pane.type("tick me")
        try pane.press("Enter")
        #expect(
            pane.waitFor { $0.contains("you: tick me ✓✓\n") || $0.contains("you: tick me ✓✓ ") }, "\(pane.capture())")
        #expect(Self.paneRows(pane.capture()).contains { $0.hasSuffix("alice: from alice") }, "\(pane.capture())")

        // When alice reads the chat, it shows read
        try parley.client("alice", ["read", chat])
        #expect(
            pane.waitFor { Self.paneRows($0).contains { $0.hasSuffix("you: tick me ✓✓ read") } }, "\(pane.capture())")

        // When alice's node is down, what bob writes stays sent: one tick
        session.nodes[0].terminateAndWait()
        try pane.type("nobody home")
        try pane.press("Enter")
        #expect(pane.waitFor { Self.paneRows($0).contains { $0.hasSuffix("you: nobody home ✓") } }, "\(pane.capture())")
        Thread.sleep(forTimeInterval: 3) // past a refresh of the ticks
        #expect(Self.paneRows(pane.capture()).contains { $0.hasSuffix("you: nobody home ✓") }, "\(pane.capture())")
    }

    @Test func sendingToAChatNobodyCanReachSaysSoInTheStatusLine() throws {
        let session = try FullScreenTests.Session.start()
        defer { session.stop() }
        let (parley, pane) = (session.parley, session.pane)
        // Given a chat of bob's with dave, a contact without an address whose node never announced itself
        _ = try parley.keygen("dave")
        try parley.client("bob", ["contacts", "add", "\(parley.workspace)/keys/dave.pub", "--name", "dave"])
        try parley.client("bob", ["chat", "create", "Dave only", "--member", "dave"])

        // When bob opens it and writes there
        var opened = false
        for _ in 0..<4 where !opened {
            try pane.press("Tab")
            opened = pane.waitFor(seconds: 3) { $0.contains("# Dave only") }
        }
        #expect(opened, "\(pane.capture())")
        try pane.type("anyone?")
        try pane.press("Enter")

        // Then the status line says why dave gets nothing
        #expect(pane.waitFor { $0.contains("no address known for dave") }, "\(pane.capture())")
    }
}
