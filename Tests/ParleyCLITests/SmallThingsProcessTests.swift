import Foundation
import Testing

/// The small things a user notices, through the real `parley` binary: the version, local data,
/// negative scores, re-adding contacts, a --data that is a file, JSON errors, and what `chat remove`
/// promises.
@Suite(.serialized, .processSuiteLimit)
struct SmallThingsProcessTests {
    /// One node, alice, with a chat and a message in it.
    struct Alone {
        let parley: ParleyBinary
        let node: Process
        let chat: String
        let message: String

        init() throws {
            parley = try ParleyBinary()
            for name in ["alice", "bob"] { _ = try parley.keygen(name) }
            node = try parley.startNode("alice", port: Ports.base(), peers: [])
            chat = try parley.client("alice", ["chat", "create", "Notes"])
            message = try parley.client("alice", ["send", chat, "pizza?"])
        }

        /// A client command of alice's that may fail: its exit status and output.
        func attempt(_ arguments: [String]) throws -> (status: Int32?, stdout: String, stderr: String) {
            try parley.runBounded(arguments + ["--data", parley.data("alice")])
        }
    }

    @Test func versionPrintsTheReleaseAndTheWireProtocol() throws {
        let output = try ParleyBinary().run(["--version"])
        #expect(output == "parley 0.2.0 (wire protocol 2)\n" || output == "parley 0.2.0 (wire protocol 2)")
        #expect(!output.contains("\n"))
    }

    @Test func aMemberWithNoAddressAndNoRouteIsNamedOnStderr() throws {
        let alone = try Alone()
        defer { alone.node.terminateAndWait() }
        let parley = alone.parley
        // Given Dave Smith, added as a contact without an address, whose node never announced itself
        let dave = try parley.keygen("dave").trimmingCharacters(in: .whitespacesAndNewlines)
        try parley.client("alice", ["contacts", "add", "\(parley.workspace)/keys/dave.pub", "--name", "Dave Smith"])
        let notice = """
            Note: no address known for Dave Smith: a node answers only its contacts and chat members, so have them add you as a contact \
            ('parley status' prints your id), or add their address: 'parley contacts add \(dave) --name "Dave Smith" --addr HOST:PORT'

            """

        // When alice creates a chat with him and sends into it
        let created = try alone.attempt(["chat", "create", "Lunch", "--member", "Dave Smith"])
        let sent = try alone.attempt(["send", "Lunch", "anyone?"])

        // Then both succeed and say, on stderr, why dave gets nothing
        #expect(created.status == 0 && created.stderr == notice)
        #expect(sent.status == 0 && sent.stderr == notice)
        // And under --json the reply carries it instead of a line on stderr
        let json = try alone.attempt(["send", "Lunch", "still?", "--json"])
        #expect(
            json.stderr.isEmpty && json.stdout.contains("\"noRoute\":[{\"id\":\"\(dave)\",\"name\":\"Dave Smith\"}]"))

        // When an address for dave is given, the note goes away
        try parley.client(
            "alice",
            [
                "contacts", "add", "\(parley.workspace)/keys/dave.pub", "--name", "Dave Smith", "--addr",
                "127.0.0.1:\(Ports.base() + 9)",
            ])
        let addressed = try alone.attempt(["send", "Lunch", "now?"])
        #expect(addressed.status == 0 && addressed.stderr.isEmpty)
    }

    @Test func localValuesAreListedAndDeletedAndAnUnsetKeyExitsOne() throws {
        let alone = try Alone()
        defer { alone.node.terminateAndWait() }
        let (parley, message) = (alone.parley, alone.message)
        // Given two local values on a message
        try parley.client("alice", ["local", "set", message, "note", "ask about vegan"])
        try parley.client("alice", ["local", "set", message, "star", "1"])

        // Then list shows both by key, and delete says what it removed
        #expect(try parley.client("alice", ["local", "list", message]) == "note = ask about vegan\nstar = 1")
        #expect(
            try parley.client("alice", ["local", "delete", message, "note"]) == "deleted note (was ask about vegan)")
        #expect(try parley.client("alice", ["local", "list", message]) == "star = 1")
        // And get and delete of an unset key exit 1 with one line on stderr
        for command in ["get", "delete"] {
            let unset = try alone.attempt(["local", command, message, "note"])
            #expect(unset.status == 1 && unset.stdout.isEmpty)
            #expect(unset.stderr == "Error: no local value 'note' on message \(message.prefix(12))…\n")
        }
    }

    @Test func parleysOwnLocalKeysCannotBeSetOrDeleted() throws {
        let alone = try Alone()
        defer { alone.node.terminateAndWait() }
        let (parley, chat) = (alone.parley, alone.chat)
        // Given a yes/no poll alice voted up on
        let poll = try parley.client("alice", ["poll", "create", chat, "Pizza?", "--json"])
        let pollID =
            try #require(try JSONSerialization.jsonObject(with: Data(poll.utf8)) as? [String: Any])["id"] as? String
            ?? ""
        try parley.client("alice", ["poll", "vote", chat, pollID, "up"])

        // When she tries to reset the vote guard by hand, or delete it
        let set = try alone.attempt(["local", "set", pollID, "pollVote", "down"])
        let delete = try alone.attempt(["local", "delete", pollID, "pollVote"])

        // Then both are refused as invalid (exit 2), saying why
        #expect(
            set.status == 2 && set.stderr.contains("'pollVote' is Parley's own local data")
                && set.stderr.contains("cannot be set"))
        #expect(delete.status == 2 && delete.stderr.contains("cannot be deleted"))
        // And the guard holds: it still reads up, is marked as Parley's in the list, and a second vote is refused
        #expect(try parley.client("alice", ["local", "get", pollID, "pollVote"]) == "up")
        #expect(try parley.client("alice", ["local", "list", pollID]).contains("pollVote = up  (Parley's own)"))
        #expect(try alone.attempt(["poll", "vote", chat, pollID, "down"]).status == 5)
    }

    @Test func aNegativeScoreCanFollowScoreAsItsOwnArgument() throws {
        let alone = try Alone()
        defer { alone.node.terminateAndWait() }
        let (parley, chat, message) = (alone.parley, alone.chat, alone.message)

        // When alice reacts with "--score -3", the value as a separate argument
        try parley.client("alice", ["react", chat, message, "meh", "--score", "-3"])

        // Then the reaction is stored with that score
        #expect(try parley.client("alice", ["reactions", chat, message]).contains("meh by alice, score -3"))
    }

    @Test func addingAKnownKeyAgainSaysItRenamedOrThatItIsAlreadyAContact() throws {
        let alone = try Alone()
        defer { alone.node.terminateAndWait() }
        let parley = alone.parley
        let bobPub = "\(parley.workspace)/keys/bob.pub"
        let bob = try String(contentsOfFile: bobPub, encoding: .utf8).split(separator: " ")[1].prefix(12)

        // When bob's key is added, added again with the same name, then with a new one
        let added = try parley.client("alice", ["contacts", "add", bobPub, "--name", "bob"])
        let again = try parley.client("alice", ["contacts", "add", bobPub, "--name", "bob"])
        let renamed = try parley.client("alice", ["contacts", "add", bobPub, "--name", "robert"])

        // Then each line says what happened, and there is one contact, robert
        #expect(added == "added bob \(bob)")
        #expect(again == "bob \(bob) is already a contact")
        #expect(renamed == "renamed \(bob) from bob to robert")
        #expect(
            try parley.client("alice", ["contacts", "list"]).split(separator: "\n").map { $0.split(separator: " ")[0] }
                == ["robert"])
    }

    @Test func aDataPathThatIsAFileGivesOneReadableLine() throws {
        // Given a regular file where a data directory is expected
        let parley = try ParleyBinary()
        _ = try parley.keygen("alice")
        let file = parley.workspace + "/notes.txt"
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))

        // When a node and a client command are pointed at it, and a node below it
        let node = try parley.runBounded([
            "node", "--key", "\(parley.workspace)/keys/alice.key", "--data", file, "--listen", "127.0.0.1:0",
        ])
        let client = try parley.runBounded(["chat", "list", "--data", file])
        let below = try parley.runBounded([
            "node", "--key", "\(parley.workspace)/keys/alice.key", "--data", file + "/sub", "--listen", "127.0.0.1:0",
        ])

        // Then each exits 1 with one line naming the path, and no Foundation error dump
        for run in [node, client] {
            #expect(run.status == 1 && run.stderr == "Error: --data \(file) is a file, not a directory\n")
        }
        #expect(
            below.status == 1
                && below.stderr == "Error: cannot create the data directory \(file)/sub: Not a directory\n")
        #expect(![node, client, below].contains { $0.stderr.contains("NSCocoaErrorDomain") })
    }

    @Test func underJSONEveryErrorIsAJSONLineWithTheUsualExitCode() throws {
        let alone = try Alone()
        defer { alone.node.terminateAndWait() }
        let parley = alone.parley
        func error(_ run: (status: Int32?, stdout: String, stderr: String)) throws -> (
            status: Int32?, kind: String?, message: String?
        ) {
            let lines = run.stderr.split(separator: "\n")
            #expect(lines.count == 1 && run.stdout.isEmpty)
            let object = try JSONSerialization.jsonObject(with: Data(run.stderr.utf8)) as? [String: [String: String]]
            return (run.status, object?["error"]?["kind"], object?["error"]?["message"])
        }

        // When a node refuses a request, a usage mistake is made, no node runs, and a key is reserved
        let notFound = try error(try alone.attempt(["messages", "Dinner", "--json"]))
        let usage = try error(try alone.attempt(["messages", "--json"]))
        let noNode = try error(
            try parley.runBounded(["chat", "list", "--json", "--data", parley.workspace + "/nobody"]))
        let unset = try error(try alone.attempt(["local", "get", alone.message, "note", "--json"]))

        // Then each is {"error":{"kind","message"}} on stderr, with the exit code it has without --json
        #expect(
            notFound.status == 3 && notFound.kind == "notFound"
                && notFound.message == "no chat titled 'Dinner' (see 'parley chat list')")
        #expect(usage.status == 64 && usage.kind == "invalid" && usage.message == "Missing expected argument '<chat>'")
        #expect(
            noNode.status == 1 && noNode.kind == "unavailable"
                && noNode.message?.hasPrefix("no node is running") == true)
        #expect(unset.status == 1 && unset.kind == "notFound")
        // And without --json the same failure is the one "Error:" line
        let text = try alone.attempt(["messages", "Dinner"])
        #expect(text.status == 3 && text.stderr == "Error: no chat titled 'Dinner' (see 'parley chat list')\n")
    }

    @Test func chatRemoveHelpSaysWhatTheThreatModelSaysAboutRemoval() throws {
        // Given what the threat model says about removal
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let model = try String(contentsOf: root.appendingPathComponent("docs/THREAT_MODEL.md"), encoding: .utf8)
        #expect(model.contains("a re-added member also reads what was said while it was out"))
        #expect(model.contains("A removed member keeps the keys of the epochs it was in and reads what was sent then"))

        // When the help of chat remove is shown
        let help = try ParleyBinary().run(["chat", "remove", "--help"]).split(whereSeparator: \.isWhitespace).joined(
            separator: " ")

        // Then it says the same: forward-only, earlier epochs still readable, a re-added member reads what it missed
        #expect(help.contains("Removal is forward-only"))
        #expect(help.contains("cannot read anything sent after the removal"))
        #expect(
            help.contains(
                "It keeps the keys of the epochs it was in, so it still reads what was sent while it was a member"))
        #expect(help.contains("by design it then also reads what was sent while it was away"))
    }
}
