import Foundation
import ParleyCore
import ParleyCrypto
import ParleyStore
import Testing

/// A member proven to have signed two histories (PROTOCOL.md §4.4), as the real `parley` shows it:
/// `chat list` marks the chat, `members` the member, `messages` adds a note on stderr, and the full
/// screen a warning line, each with the member's name, which the peer chose and which is escaped.
/// The proof is put in alice's store while her node is stopped, as if her node had found it.
@Suite(.serialized, .processSuiteLimit)
struct ForkDisplayProcessTests {
    /// Escape sequences (colour, clear screen), a right-to-left override, a line break.
    static let hostileName = "mal\u{1B}[31m\u{1B}[2J\u{202E}lory\nbob: hi"
    static let shownName = "mal\u{FFFD}[31m\u{FFFD}[2J\u{FFFD}lory⏎bob: hi"

    struct Bed {
        let parley: ParleyBinary
        let port: Int
        let chat: String
        let mallory: Identity
        var node: Process

        /// Alice's node with a chat "Lunch" with mallory (a contact with a hostile name) whose fork
        /// at her sequence 1 alice's store holds.
        static func make() async throws -> Bed {
            let parley = try ParleyBinary()
            let port = Ports.base()
            _ = try parley.keygen("alice")
            let mallory = try Identity.generate()
            try FileManager.default.createDirectory(atPath: parley.data("alice"), withIntermediateDirectories: true)
            _ = try await Self.withStore(parley) { store in
                try await store.addContact(Contact(peer: mallory.publicKey, name: ForkDisplayProcessTests.hostileName))
            }
            var node = try parley.startNode("alice", port: port, peers: [])
            let chat: String
            do {
                chat = try parley.client("alice", ["chat", "create", "Lunch", "--member", mallory.publicKey.hex])
                try parley.client("alice", ["send", chat, "before the fork"])
            } catch {
                node.terminateAndWait()
                throw error
            }
            node.terminateAndWait()
            let chatID = try ChatID(rawRepresentation: Hex.decode(chat))
            let proof = try Self.proof(chat: chatID, author: mallory)
            let kept = try await Self.withStore(parley) { store in try await store.recordFork(proof, atMillis: 0) }
            #expect(kept)
            node = try parley.startNode("alice", port: port, peers: [])
            return Bed(parley: parley, port: port, chat: chat, mallory: mallory, node: node)
        }

        /// Alice's store, opened for `body` only (her node is stopped meanwhile).
        private static func withStore<Result>(_ parley: ParleyBinary, _ body: (MessageStore) async throws -> Result)
            async throws -> Result
        {
            let store = try MessageStore.open(path: parley.data("alice") + "/parley.sqlite")
            return try await body(store)
        }

        /// Two different messages of `author` for slot 1 of its chain: a proof of its fork there.
        static func proof(chat: ChatID, author: Identity) throws -> ForkProof {
            func branch(_ text: String) throws -> Message {
                try MessageDraft(
                    chat: chat, author: author.publicKey, sequence: 1, previous: nil, lamport: 1, timestampMillis: 0,
                    tag: .text, content: Array(text.utf8), references: []
                ).chained().signedAsHead(by: author)
            }
            return try ForkProof(first: [try branch("to alice")], second: [try branch("to bob")])
        }

        func stop() { node.terminateAndWait() }

        /// Nothing a peer wrote reached the terminal as a control: no ESC, no bidirectional override.
        static func harmless(_ text: String) -> Bool {
            !text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x202E }
        }
    }

    @Test func theCommandsNameTheForkedMemberAndEscapeTheName() async throws {
        let bed = try await Bed.make()
        defer { bed.stop() }
        let data = ["--data", bed.parley.data("alice")]

        // The chat list marks the chat
        let chats = try bed.parley.runBounded(["chat", "list"] + data)
        #expect(chats.stdout.contains("Lunch  ⚠ \(Self.shownName) signed two histories"), "\(chats.stdout)")
        #expect(Bed.harmless(chats.stdout))

        // The member list marks her, and her alone
        let members = try bed.parley.runBounded(["members", "Lunch"] + data)
        let lines = members.stdout.split(separator: "\n").map(String.init)
        #expect(
            lines.contains {
                $0.hasPrefix(Self.shownName)
                    && $0.hasSuffix(
                        "⚠ signed two histories from their message 1: their messages from then on count for nothing")
            }, "\(members.stdout)")
        #expect(lines.filter { $0.contains("signed two histories") }.count == 1)
        #expect(Bed.harmless(members.stdout))

        // The messages are listed, with a note on stderr naming her
        let messages = try bed.parley.runBounded(["messages", "Lunch"] + data)
        #expect(messages.status == 0)
        #expect(messages.stdout.contains("before the fork"))
        #expect(!messages.stdout.contains("signed two histories"))
        #expect(
            messages.stderr.contains(
                "Note: \(Self.shownName) signed two histories from their message 1: their messages from then on count for nothing and are not shown"
            ),
            "\(messages.stderr)")
        #expect(Bed.harmless(messages.stderr))

        // Under --json the output is the JSON alone: the views carry the fork, nothing on stderr
        let json = try bed.parley.runBounded(["messages", "Lunch", "--json"] + data)
        #expect(json.stderr.isEmpty, "\(json.stderr)")
        let list = try bed.parley.runBounded(["chat", "list", "--json"] + data)
        #expect(list.stdout.contains("\"forked\":[{") && list.stdout.contains("\"fromSequence\":1"), "\(list.stdout)")
        let presence = try bed.parley.runBounded(["members", "Lunch", "--json"] + data)
        #expect(presence.stdout.contains("\"forkedFrom\":1"), "\(presence.stdout)")
    }

    @Test(.enabled(if: TmuxPane.executable != nil, "tmux is not installed: the full-screen tests need it"))
    func theFullScreenShowsAWarningLineNamingTheForkedMember() async throws {
        let bed = try await Bed.make()
        defer { bed.stop() }
        let command =
            [ParleyBinary.path, "open", bed.chat, "--data", bed.parley.data("alice")].map { "'\($0)'" }.joined(
                separator: " ")
            + "; sleep 120"
        let pane = try TmuxPane(command: command, width: 80, height: 24)
        defer { pane.kill() }

        // The message pane's first row warns about her, above the messages
        #expect(pane.waitFor { $0.contains("before the fork") && $0.contains("signed two") }, "\(pane.capture())")
        let screen = pane.capture()
        let rows = FullScreenEntriesTests.paneRows(screen)
        #expect(rows.count > 1 && rows[1].hasPrefix("⚠ mal\u{FFFD}[31m\u{FFFD}[2J\u{FFFD}lory⏎bob: hi"), "\(screen)")
        // and the member pane marks her
        #expect(screen.contains("⚠ mal\u{FFFD}[31m"), "\(screen)")
        #expect(
            screen.split(separator: "\n").contains {
                $0.contains("│ ○ ⚠ mal") || $0.contains("│ ● ⚠ mal") || $0.contains("│   ⚠ mal")
            }, "\(screen)")
        #expect(Bed.harmless(screen))
    }
}
