import Foundation
import Testing

/// What the real `parley` binary tells a person: help that says what a command does, argument errors
/// on one line with the help to read, a suggestion for a mistyped command, and commands that say
/// what they did.
@Suite(.serialized, .processSuiteLimit)
struct HelpAndErrorsProcessTests {
    /// `parley ARGUMENTS` that may fail: its exit status and output. No node runs for these.
    static func attempt(_ arguments: [String]) throws -> (status: Int32?, stdout: String, stderr: String) {
        try ParleyBinary().runBounded(arguments)
    }

    @Test func anArgumentErrorIsOneLineThatNamesTheHelpAndExits64() throws {
        // When a command misses an argument, or takes one too many
        let missing = try Self.attempt(["messages"])
        let extra = try Self.attempt(["poll", "close", "Lunch", "ab12", "cd34"])

        // Then each is one "Error:" line ending with the help to read, and exit code 64
        #expect(
            missing.status == 64
                && missing.stderr == "Error: Missing expected argument '<chat>' (see 'parley messages --help')\n")
        #expect(
            extra.status == 64 && extra.stderr == "Error: Unexpected argument 'cd34' (see 'parley poll close --help')\n"
        )
        // and under --json it is the JSON line, with the same exit code
        let json = try Self.attempt(["messages", "--json"])
        #expect(
            json.status == 64
                && json.stderr == #"{"error":{"kind":"invalid","message":"Missing expected argument '<chat>'"}}"# + "\n"
        )
    }

    @Test func aMistypedCommandSuggestsTheClosestOne() throws {
        let sendd = try Self.attempt(["sendd", "Lunch", "hi"])
        #expect(
            sendd.status == 64
                && sendd.stderr == "Error: unknown command 'sendd'; did you mean 'send'? (see 'parley --help')\n")
        let craete = try Self.attempt(["poll", "craete", "Lunch", "Pizza?"])
        #expect(
            craete.stderr
                == "Error: unknown 'parley poll' command 'craete'; did you mean 'create'? (see 'parley poll --help')\n")
        // a word close to nothing gets no guess
        let nothing = try Self.attempt(["xyzzy"])
        #expect(nothing.status == 64 && nothing.stderr == "Error: unknown command 'xyzzy' (see 'parley --help')\n")
    }

    @Test func aNegativeLimitIsRefusedAsANumberNotAsAMissingValue() throws {
        let messages = try Self.attempt(["messages", "Lunch", "--limit", "-1"])
        #expect(
            messages.status == 64
                && messages.stderr.hasPrefix("Error: --limit must be 0 (all) or a positive number, not -1"))
        let reactions = try Self.attempt(["reactions", "Lunch", "ab12", "--limit", "-1"])
        #expect(
            reactions.status == 64 && reactions.stderr.hasPrefix("Error: --limit must be a positive number, not -1"))
        let votes = try Self.attempt(["poll", "votes", "Lunch", "ab12", "--limit", "0"])
        #expect(votes.status == 64 && votes.stderr.hasPrefix("Error: --limit must be a positive number, not 0"))
        let maxVotes = try Self.attempt([
            "poll", "create", "Lunch", "Where?", "--option", "A", "--option", "B", "--max-votes", "-2",
        ])
        #expect(
            maxVotes.status == 64 && maxVotes.stderr.hasPrefix("Error: --max-votes must be a positive number, not -2"))
    }

    @Test func theVersionIsAnOptionOfTheRootCommandOnly() throws {
        #expect(try ParleyBinary().run(["--version"]) == "parley 0.2.0 (wire protocol 2)")
        #expect(try ParleyBinary().run(["--help"]).contains("--version"))
        for command in [["send"], ["chat", "list"], ["poll", "create"], ["node"]] {
            let help = try ParleyBinary().run(command + ["--help"])
            #expect(!help.contains("--version"), "\(command)")
        }
        let refused = try Self.attempt(["chat", "list", "--version"])
        #expect(
            refused.status == 64
                && refused.stderr
                    == "Error: --version is an option of parley alone: 'parley --version' (see 'parley chat list --help')\n"
        )
    }

    @Test func theHelpSaysWhatEachCommandDoes() throws {
        /// A command's help on one line, its wrapping undone.
        func help(_ command: [String]) throws -> String {
            try ParleyBinary().run(command + ["--help"]).split(whereSeparator: \.isWhitespace).joined(separator: " ")
        }
        // chat list orders by activity, as the node does
        let list = try help(["chat", "list"])
        #expect(list.contains("most recently active first") && !list.contains("by name"))
        // open offers no --json (it has none), and points to watch for JSON lines
        let open = try help(["open"])
        #expect(!open.contains("Print JSON") && open.contains("parley watch CHAT --json"))
        // --anonymous says members' nodes can tell, and points to --secret; no "BBM" jargon
        let create = try help(["poll", "create"])
        #expect(
            create.contains(
                "Members' nodes still receive every vote and can tell; for a ballot no one can trace, use --secret"))
        let poll = try help(["poll"])
        #expect(!create.contains("BBM") && !poll.contains("BBM"))
        // local get and set name their arguments
        let set = try help(["local", "set"])
        #expect(
            set.contains("<message> The message (an id prefix, in any chat).") && set.contains("<key> The key:")
                && set.contains("<value> The value:"))
        let get = try help(["local", "get"])
        #expect(get.contains("<message> The message (an id prefix, in any chat)."))
    }

    @Test func aMissingPubFileIsSaidToBeMissing() throws {
        let parley = try ParleyBinary()
        let missing = try parley.runBounded([
            "contacts", "add", "keys/nope.pub", "--name", "nope", "--data", parley.data("alice"),
        ])
        #expect(missing.status == 1 && missing.stderr == "Error: no such file: keys/nope.pub\n")
        let neither = try parley.runBounded(["contacts", "add", "bob", "--name", "bob", "--data", parley.data("alice")])
        #expect(neither.stderr == "Error: 'bob' is neither a .pub file nor a 64-digit peer id\n")
    }

    @Test func readUpToTakesAMessageIdPrefixOrANumberAndRefusesANumberPastTheChat() throws {
        // Given alice's node with a chat of two messages
        let parley = try ParleyBinary()
        _ = try parley.keygen("alice")
        let node = try parley.startNode("alice", port: Ports.base(), peers: [])
        defer { node.terminateAndWait() }
        let chat = try parley.client("alice", ["chat", "create", "Notes"])
        let first = try parley.client("alice", ["send", chat, "one"])
        try parley.client("alice", ["send", chat, "two"])

        // When she reads up to a number beyond the chat's messages, it is refused and nothing is read
        let beyond = try parley.runBounded(["read", "Notes", "--upto", "#999", "--data", parley.data("alice")])
        #expect(beyond.status == 2 && beyond.stderr == "Error: there is no #999: the chat's messages go up to #2\n")
        // When she reads up to the first message by its id prefix, then to #2
        #expect(
            try parley.client("alice", ["read", "Notes", "--upto", String(first.prefix(8))]).hasPrefix("read up to #1 ")
        )
        #expect(try parley.client("alice", ["read", "Notes", "--upto", "#2"]).hasPrefix("read up to #2 "))
        // and something that is neither is refused before asking the node
        let neither = try parley.runBounded(["read", "Notes", "--upto", "latest", "--data", parley.data("alice")])
        #expect(
            neither.status == 64
                && neither.stderr.hasPrefix(
                    "Error: --upto takes a message id prefix (hex, as listed) or #N, not 'latest'")
        )
    }

    @Test func postingCommandsSayWhatTheyDidOnATerminalAndPrintTheIdWhenPiped() throws {
        let parley = try ParleyBinary()
        _ = try parley.keygen("alice")
        let node = try parley.startNode("alice", port: Ports.base(), peers: [])
        defer { node.terminateAndWait() }
        try parley.client("alice", ["chat", "create", "Notes"])

        // Piped, send prints the full id alone (for `id=$(parley send …)`); under --json the view
        let piped = try parley.client("alice", ["send", "Notes", "piped"])
        #expect(piped.count == 64 && piped.allSatisfy(\.isHexDigit))
        let json =
            try JSONSerialization.jsonObject(
                with: Data(try parley.client("alice", ["send", "Notes", "json", "--json"]).utf8)) as? [String: Any]
        #expect((json?["id"] as? String)?.count == 64)

        // On a terminal, each says what it did, with a short id
        func onTerminal(_ arguments: [String]) throws -> String {
            try PseudoTerminal.run([ParleyBinary.path] + arguments + ["--data", parley.data("alice")])
        }
        let sent = try onTerminal(["send", "Notes", "hi"])
        #expect(sent.wholeMatch(of: #/sent to Notes \(id [0-9a-f]{8}\)/#) != nil, "\(sent)")
        let poll = try onTerminal(["poll", "create", "Notes", "Pizza?"])
        let pollID = try #require(
            poll.wholeMatch(of: #/posted a poll in Notes \(id ([0-9a-f]{8})\)/#)?.output.1, "\(poll)")
        #expect(
            try onTerminal(["poll", "vote", "Notes", String(pollID), "up"]).hasPrefix("voted up on poll \(pollID) (id ")
        )
        #expect(try onTerminal(["react", "Notes", String(pollID), "👍"]).hasPrefix("reacted 👍 to \(pollID) (id "))
        #expect(try onTerminal(["poll", "close", "Notes", String(pollID)]).hasPrefix("closed poll \(pollID) (id "))
    }

    @Test func aPeerThatDoesNotAnswerIsNamedWithBothWaysOutAndTheFirstWorks() throws {
        // Given alice, whose node has bob's address only as --peer, and bob, who does not know alice
        let parley = try ParleyBinary()
        let base = Ports.base()
        for name in ["alice", "bob"] { _ = try parley.keygen(name) }
        let nodes = [
            try parley.startNode("alice", port: base, peers: [base + 1]),
            try parley.startNode("bob", port: base + 1, peers: []),
        ]
        defer { nodes.forEach { $0.terminateAndWait() } }
        try parley.client("alice", ["contacts", "add", "\(parley.workspace)/keys/bob.pub", "--name", "bob"])

        // When alice invites bob, the note says why nothing reaches him and what to do
        let created = try parley.runBounded([
            "chat", "create", "Lunch", "--member", "bob", "--data", parley.data("alice"),
        ])
        #expect(created.status == 0)
        #expect(
            created.stderr.hasPrefix(
                "Note: no address known for bob: a node answers only its contacts and chat members, so have them add you as a contact"
            ))
        let chat = created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        // When bob does the first (adds alice as a contact), his node answers hers and the invite arrives
        try parley.client("bob", ["contacts", "add", "\(parley.workspace)/keys/alice.pub", "--name", "alice"])
        #expect(
            parley.eventually("bob", ["messages", chat], seconds: 30) { _ in true }, "the invite never reached bob")
    }
}

/// Runs a command on a pseudo-terminal (util-linux `script`), as a person at a terminal would.
enum PseudoTerminal {
    static func run(_ command: [String]) throws -> String {
        let quoted = command.map { "'" + $0.replacingOccurrences(of: "'", with: #"'\''"#) + "'" }.joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["--quiet", "--return", "--command", quoted, "/dev/null"]
        let out = Pipe()
        process.standardOutput = out
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: output, as: UTF8.self).replacingOccurrences(of: "\r", with: "").trimmingCharacters(
            in: .whitespacesAndNewlines)
        guard process.terminationStatus == 0 else {
            throw CommandFailed(arguments: command, status: process.terminationStatus, stderr: text)
        }
        return text
    }
}
