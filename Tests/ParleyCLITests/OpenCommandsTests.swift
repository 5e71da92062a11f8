import Foundation
import Testing

/// `parley open`'s slash commands as a user learns and uses them in line mode: the help lists every
/// command the parser takes, `/reply` quotes and references, `--json` points at `watch --json`.
@Suite(.processSuiteLimit)
struct OpenCommandsTests {
    @Test func helpListsEverySlashCommandTheParserTakes() throws {
        let session = try OpenSessionTests.Session.start()
        defer { session.stop() }
        let open = session.open

        // Given the commands the parser takes, as its unknown-command error lists them
        try open.type("/nosuch")
        #expect(open.waitFor { $0.contains("error: unknown command /nosuch; try ") }, "\(open.transcript)")
        let listed = try #require(open.transcript.firstMatch(of: #/unknown command /nosuch; try ([^\n]+)/#)).output.1
        let parsed = listed.split(separator: ", ").map(String.init)
        #expect(
            Set(parsed).isSuperset(of: [
                "/poll", "/vote", "/unvote", "/answer", "/suggest", "/close", "/results", "/reply", "/react",
                "/unreact", "/older", "/quit",
            ]), "\(parsed)")

        // When the user asks for open's help
        let help = try session.parley.run(["open", "--help"])

        // Then it has one usage line per command the parser takes, and no other
        let usages = help.split(separator: "\n").filter { $0.hasPrefix("  /") }.map {
            $0.dropFirst(2).prefix { $0 != " " }
        }.map(String.init)
        #expect(usages == parsed, "\(help)")
        // and the line-mode greeting names the same commands
        #expect(open.transcript.contains("type a message, or \(listed)\n"), "\(open.transcript)")
    }

    @Test func replyInLineModeQuotesTheMessageAndSendsAReference() throws {
        let session = try OpenSessionTests.Session.start()
        defer { session.stop() }
        let (parley, chat, open) = (session.parley, session.chat, session.open)

        // Given alice's question, printed with its id
        try parley.client("alice", ["send", chat, "who is in?"])
        #expect(open.waitFor { $0.contains("alice: who is in?") }, "\(open.transcript)")
        let question = String(
            try #require(open.transcript.firstMatch(of: #/#\d+ ([0-9a-f]{12}) alice: who is in\?/#)).output.1)

        // When bob replies to it with that id
        try open.type("/reply \(question) me")

        // Then alice's node holds a Text message referencing it, and bob's session prints it under a quote
        #expect(
            parley.eventually("alice", ["messages", chat, "--ref", question]) {
                $0.contains("bob: me → \(question.prefix(8)):Text")
            })
        #expect(
            open.waitFor {
                $0.contains("  ↳ alice: who is in?\n#") && $0.contains("bob: me → \(question.prefix(8)):Text")
            }, "\(open.transcript)")

        // When the message is not known, one error line is printed
        try open.type("/reply 0000 lost")
        #expect(open.waitFor { $0.contains("error: no message matches id prefix '0000'") }, "\(open.transcript)")
    }

    @Test func openOffersNoJSONAndItsHelpPointsToWatch() throws {
        let parley = try ParleyBinary()
        // When the user asks open for JSON, it is an unknown option, on one line with the help to read
        let refused = try parley.runBounded(["open", "Lunch", "--json", "--data", parley.data("bob")])
        #expect(
            refused.status == 64 && refused.stderr.contains(#""message":"Unknown option '--json'""#),
            "\(refused.stderr)")
        let text = try parley.runBounded(["open", "Lunch", "--line", "--jsonn", "--data", parley.data("bob")])
        #expect(text.stderr == "Error: Unknown option '--jsonn' (see 'parley open --help')\n")
        // and that help names the command that streams JSON
        #expect(
            try parley.run(["open", "--help"]).contains("For a stream of JSON lines, use `parley watch CHAT --json`."))
    }
}
