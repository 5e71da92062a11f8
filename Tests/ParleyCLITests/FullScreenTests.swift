import Foundation
import Testing

/// `parley open` as a full-screen terminal UI, driven in a real 80×24 terminal (tmux) against two
/// nodes on loopback. Skipped only when tmux is not installed.
@Suite(
    .processSuiteLimit,
    .enabled(if: TmuxPane.executable != nil, "tmux is not installed: the full-screen tests need it"))
struct FullScreenTests {
    /// Alice and bob in a chat "Lunch" (and a second chat "Plans"), bob's `parley open` in a tmux pane.
    struct Session {
        let parley: ParleyBinary
        let chat: String
        let plans: String
        let pane: TmuxPane
        let nodes: [Process]

        static func start(openOptions: [String] = []) throws -> Session {
            let parley = try ParleyBinary()
            let base = Ports.base()
            for name in ["alice", "bob"] { _ = try parley.keygen(name) }
            var nodes: [Process] = []
            do {
                nodes.append(try parley.startNode("alice", port: base, peers: [base + 1]))
                nodes.append(try parley.startNode("bob", port: base + 1, peers: [base]))
                try parley.client("alice", ["contacts", "add", "\(parley.workspace)/keys/bob.pub", "--name", "bob"])
                try parley.client("bob", ["contacts", "add", "\(parley.workspace)/keys/alice.pub", "--name", "alice"])
                let chat = try parley.client("alice", ["chat", "create", "Lunch", "--member", "bob"])
                let plans = try parley.client("alice", ["chat", "create", "Plans", "--member", "bob"])
                for id in [chat, plans] {
                    try #require(parley.eventually("bob", ["messages", id]) { _ in true }, "bob never got the invite")
                }
                // After the command: its exit status, and whether the terminal is back in canonical mode.
                let command =
                    ([ParleyBinary.path, "open", chat, "--data", parley.data("bob")] + openOptions).map { "'\($0)'" }
                    .joined(separator: " ")
                    + "; echo parley-exit-$?; stty -a | tr ' ' '\\n' | grep -x -e icanon -e -icanon; sleep 120"
                let pane = try TmuxPane(command: command, width: 80, height: 24)
                return Session(parley: parley, chat: chat, plans: plans, pane: pane, nodes: nodes)
            } catch {
                nodes.forEach { $0.terminateAndWait() }
                throw error
            }
        }

        func stop() {
            pane.kill()
            nodes.forEach { $0.terminateAndWait() }
        }
    }

    /// The bottom row holds the input line: "> " and what is typed (trailing spaces trimmed).
    static func inputRow(_ screen: String) -> String? {
        screen.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.last { !$0.isEmpty }
    }

    @Test func chatsInAnEightyByTwentyFourTerminalAndRestoresItOnQuit() throws {
        let session = try Session.start()
        defer { session.stop() }
        let (parley, chat, pane) = (session.parley, session.chat, session.pane)

        // The layout: chat list, the open chat's title, the members and the input prompt
        #expect(
            pane.waitFor { screen in
                screen.contains("Chats") && screen.contains("# Lunch") && screen.contains("Members (2)")
                    && screen.contains("alice") && screen.contains("Plans") && Self.inputRow(screen) == ">"
            }, "\(pane.capture())")

        // When bob types a message and Enter, it shows in the list (after its time and id) and reaches alice
        try pane.type("hello full screen")
        try pane.press("Enter")
        #expect(pane.waitFor { $0.contains("you: hello full screen") }, "\(pane.capture())")
        #expect(
            parley.eventually("alice", ["messages", chat, "--json"]) { $0.contains("\"text\":\"hello full screen\"") })

        // When alice writes, bob sees it live
        try parley.client("alice", ["send", chat, "hi bob, from alice"])
        #expect(pane.waitFor { $0.contains("alice: hi bob, from alice") }, "\(pane.capture())")

        // When alice reacts to her message and starts typing, bob sees the reaction under it and the
        // typing line; the member pane marks alice online (her heartbeats)
        let hi = try parley.client("alice", ["messages", chat, "--limit", "1", "--json"])
        let hiID = try #require(hi.firstMatch(of: #/"id":"([0-9a-f]{64})"/#)).output.1
        try parley.client("alice", ["react", chat, String(hiID), "lgtm"])
        #expect(pane.waitFor { $0.contains("lgtm 1") }, "\(pane.capture())")
        try parley.client("alice", ["typing", chat])
        #expect(pane.waitFor { $0.contains("alice is typing…") }, "\(pane.capture())")
        try parley.client("alice", ["typing", chat, "--stop"])
        #expect(pane.waitFor { !$0.contains("alice is typing…") }, "\(pane.capture())")
        #expect(pane.waitFor { $0.contains("● alice") }, "\(pane.capture())")
        // and bob reacts to the latest message without typing its id
        try pane.type("/react yes")
        try pane.press("Enter")
        #expect(pane.waitFor { $0.contains("lgtm 1") && $0.contains("yes 1") }, "\(pane.capture())")
        #expect(
            parley.eventually("alice", ["reactions", chat, String(hiID), "--json"]) { $0.contains("\"type\":\"yes\"") })

        // When bob creates a poll and votes, the card shows live; alice's vote updates it
        try pane.type("/poll Lunch? | A | B")
        try pane.press("Enter")
        #expect(pane.waitFor { $0.contains("· you: Lunch?") && $0.contains("0 votes") }, "\(pane.capture())")
        let match = try #require(pane.capture().firstMatch(of: #/Poll ([0-9a-f]{8}) · you: Lunch\?/#))
        let poll = String(match.output.1)
        try pane.type("/vote \(poll) A")
        try pane.press("Enter")
        // the status line says what the command did, and the open poll's leader is not starred (PollBar)
        #expect(
            pane.waitFor {
                $0.contains("▌ *A ") && $0.contains("1 vote") && $0.contains("voted A on poll \(poll) (id ")
            }, "\(pane.capture())")
        #expect(!pane.capture().contains("★"), "\(pane.capture())")
        #expect(parley.eventually("alice", ["poll", "results", chat, poll]) { $0.contains("Lunch?") })
        try parley.client("alice", ["poll", "vote", chat, poll, "B"])
        #expect(pane.waitFor { $0.contains("2 votes") && $0.contains("▌  B ") }, "\(pane.capture())")
        // Closed 1–1: two half bars, and no star for a tie
        try pane.type("/close \(poll)")
        try pane.press("Enter")
        #expect(
            pane.waitFor { $0.contains("Lunch? [closed]") && $0.contains("closed poll \(poll) (id ") },
            "\(pane.capture())")
        #expect(pane.capture().contains("████████········ 1 50%") && !pane.capture().contains("★"), "\(pane.capture())")

        // A mistyped command is reported in the status line and nothing is sent
        try pane.type("/vote")
        try pane.press("Enter")
        #expect(pane.waitFor { $0.contains("usage: /vote POLL") }, "\(pane.capture())")

        // Tab opens the next chat, and its own watch: what alice sends there shows
        try pane.press("Tab")
        #expect(pane.waitFor { $0.contains("# Plans") && !$0.contains("hello full screen") }, "\(pane.capture())")
        try parley.client("alice", ["send", session.plans, "plans message"])
        #expect(pane.waitFor { $0.contains("alice: plans message") }, "\(pane.capture())")

        // Every frame fits the 80 columns
        #expect(pane.capture().split(separator: "\n").allSatisfy { $0.count <= 80 }, "\(pane.capture())")

        // /quit leaves the full screen: the shell's output is back, the exit status 0, the terminal canonical again
        try pane.type("/quit")
        try pane.press("Enter")
        #expect(pane.waitFor { $0.contains("parley-exit-0") && $0.contains("\nicanon") }, "\(pane.capture())")
        #expect(!pane.capture().contains("Members (2)"))
    }

    @Test func theLineFlagKeepsLineModeOnATerminal() throws {
        let session = try Session.start(openOptions: ["--line"])
        defer { session.stop() }
        let pane = session.pane
        #expect(pane.waitFor { $0.contains("type a message") }, "\(pane.capture())")
        #expect(!pane.capture().contains("Members ("))
        try session.parley.client("alice", ["send", session.chat, "plain line"])
        #expect(pane.waitFor { $0.contains("alice: plain line") }, "\(pane.capture())")
        try pane.type("/quit")
        try pane.press("Enter")
        #expect(pane.waitFor { $0.contains("parley-exit-0") }, "\(pane.capture())")
    }
}
