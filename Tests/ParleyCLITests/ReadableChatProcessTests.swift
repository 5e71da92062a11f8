import Foundation
import Testing

/// What a new user sees through the real `parley` binary: every kind of message as a readable line,
/// nothing a peer wrote driving the terminal, reserved tags sent only by their commands, and live
/// criteria queries with `parley watch`.
@Suite(.serialized, .processSuiteLimit)
struct ReadableChatProcessTests {
    struct Pair {
        let parley: ParleyBinary
        let nodes: [Process]
        let chat: String

        init() throws {
            parley = try ParleyBinary()
            let base = Ports.base()
            for name in ["alice", "bob"] { _ = try parley.keygen(name) }
            nodes = [
                try parley.startNode("alice", port: base, peers: [base + 1]),
                try parley.startNode("bob", port: base + 1, peers: [base]),
            ]
            try parley.client("alice", ["contacts", "add", "\(parley.workspace)/keys/bob.pub", "--name", "bob"])
            try parley.client("bob", ["contacts", "add", "\(parley.workspace)/keys/alice.pub", "--name", "alice"])
            chat = try parley.client("alice", ["chat", "create", "Outing", "--member", "bob"])
            _ = parley.eventually("bob", ["chat", "list"]) { $0.contains("Outing") }
        }

        func stop() { nodes.forEach { $0.terminateAndWait() } }
    }

    @Test func everyKindOfMessageReadsAsALineInTheListTheChatListAndJSON() throws {
        let pair = try Pair()
        defer { pair.stop() }
        let (parley, chat) = (pair.parley, pair.chat)
        // Given alice's options poll and bob's vote on it
        let poll = try parley.client(
            "alice", ["poll", "create", chat, "Where?", "--option", "Lake", "--option", "Hills", "--option", "Town"])
        #expect(parley.eventually("bob", ["poll", "results", chat, poll]) { $0.contains("Where?") })
        try parley.client("bob", ["poll", "vote", chat, poll, "Lake"])
        #expect(parley.eventually("alice", ["messages", chat, "--all"]) { $0.contains("bob <PollVote>: voted Lake") })

        // Then the poll reads as its question and options everywhere, the vote as its choice
        #expect(
            try parley.client("alice", ["messages", chat]).contains("alice <Poll>: 📊 Where? (Lake · Hills · Town)"))
        #expect(try parley.client("bob", ["chat", "list"]).contains("alice: 📊 Where? (Lake · Hills · Town)"))
        let json = try parley.client("alice", ["messages", chat, "--json"])
        #expect(json.contains(#""text":"📊 Where? (Lake · Hills · Town)""#))
    }

    @Test func escapeSequencesFromAPeerReachTheTerminalAsHarmlessText() throws {
        let pair = try Pair()
        defer { pair.stop() }
        let (parley, chat) = (pair.parley, pair.chat)
        // When bob sends text that would retitle the window and clear the screen, and a fake line
        try parley.client("bob", ["send", chat, "\u{1B}]0;pwned\u{07}hi \u{1B}[2J\nalice: send me your key"])
        #expect(parley.eventually("alice", ["messages", chat]) { $0.contains("pwned") })

        // Then alice's list, chat list and watch show it without a control byte, on one line
        for output in [try parley.client("alice", ["messages", chat]), try parley.client("alice", ["chat", "list"])] {
            #expect(!output.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
        }
        let list = try parley.client("alice", ["messages", chat])
        #expect(list.contains("\u{FFFD}]0;pwned\u{FFFD}hi \u{FFFD}[2J⏎alice: send me your key"))
        #expect(!list.split(separator: "\n").contains { $0.hasPrefix("alice: send me") })
    }

    @Test func reservedTagsGoThroughTheirCommandsAndWatchFollowsACriteriaQuery() throws {
        let pair = try Pair()
        defer { pair.stop() }
        let (parley, chat) = (pair.parley, pair.chat)
        let poll = try parley.client("alice", ["poll", "create", chat, "Pizza?"])
        #expect(parley.eventually("bob", ["poll", "results", chat, poll]) { $0.contains("Pizza?") })

        // When bob tries to vote by hand with a reserved tag, it is refused with the command to use
        let refused = #expect(throws: CommandFailed.self) {
            try parley.client("bob", ["send", chat, "", "--tag", "PollVoteUp", "--ref", poll])
        }
        #expect(refused?.status == 2 && refused?.stderr.contains("parley poll vote") == true)
        // and after voting through the command, his view of his own vote is the stored one
        try parley.client("bob", ["poll", "vote", chat, poll, "down"])
        #expect(try parley.client("bob", ["poll", "results", chat, poll]).contains("you voted down"))

        // When alice watches custom "Sticker" messages, and bob sends one and a text
        let watch = try InteractiveProcess(
            executable: ParleyBinary.path,
            arguments: ["watch", chat, "--tag", "Sticker", "--json", "--data", parley.data("alice")])
        defer { watch.stop() }
        Thread.sleep(forTimeInterval: 0.5) // the watch starts from now: let it subscribe first
        try parley.client("bob", ["send", chat, "just text"])
        try parley.client("bob", ["send", chat, "🦆", "--tag", "Sticker"])

        // Then it prints the sticker, as JSON, and not the text; and marks nothing read
        #expect(watch.waitFor { $0.contains(#""tag":"Sticker""#) })
        #expect(!watch.transcript.contains("just text"))
        #expect(try parley.client("alice", ["chat", "list"]).contains("unread"))
    }
}
