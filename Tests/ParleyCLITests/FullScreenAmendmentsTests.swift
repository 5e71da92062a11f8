import Foundation
import Testing

/// Edits, deletions, pins and threads on the full screen: entries change in place as the watch
/// re-sends them, the pinned bar follows the pins, a thread replaces the chat until `/back`. Bob's
/// `parley open` in an 80×24 tmux pane, alice (the chat's creator) on the CLI; a mention of bob
/// elsewhere counted in the chat list.
@Suite(
    .processSuiteLimit,
    .enabled(if: TmuxPane.executable != nil, "tmux is not installed: the full-screen tests need it"))
struct FullScreenAmendmentsTests {
    /// The message pane's rows, without the notices (┆) that quote earlier texts.
    static func rows(_ pane: TmuxPane) -> [String] {
        FullScreenEntriesTests.paneRows(pane.capture()).filter { !$0.hasPrefix("┆") }
    }

    static func enter(_ line: String, in pane: TmuxPane) throws {
        try pane.type(line)
        try pane.press("Enter")
    }

    @Test func editDeletePinAndThreadChangeTheEntriesInPlace() throws {
        let session = try FullScreenTests.Session.start()
        defer { session.stop() }
        let (parley, chat, pane) = (session.parley, session.chat, session.pane)

        // Given alice's question, shown after her initial, and bob's own answer
        try parley.client("alice", ["send", chat, "lunch at noon?"])
        #expect(pane.waitFor { $0.contains("A alice: lunch at noon?") }, "\(pane.capture())")
        try Self.enter("see you there", in: pane)
        #expect(pane.waitFor { $0.contains("you: see you there") }, "\(pane.capture())")
        let question = try #require(FullScreenEntriesTests.shownID(of: "alice: lunch at noon?", in: pane.capture()))
        let answer = try #require(FullScreenEntriesTests.shownID(of: "you: see you there", in: pane.capture()))

        // When bob edits his answer, it changes in place, marked (on the ticks' line: the pane is too
        // narrow for both after the text), and alice's node shows the new text
        try Self.enter("/edit \(answer) see you at one", in: pane)
        #expect(
            pane.waitFor { screen in
                let rows = FullScreenEntriesTests.paneRows(screen)
                return rows.contains { $0.hasSuffix("you: see you at one") }
                    && rows.contains { $0.hasPrefix("  (edited) ✓") }
            }, "\(pane.capture())")
        #expect(!Self.rows(pane).contains { $0.contains("see you there") }, "\(pane.capture())")
        #expect(
            parley.eventually("alice", ["messages", chat, "--json"]) {
                $0.contains("\"text\":\"see you at one\"") && $0.contains("\"edits\":1")
            })
        // and /edits lists both versions
        try Self.enter("/edits \(answer)", in: pane)
        #expect(
            pane.waitFor { screen in
                let rows = FullScreenEntriesTests.paneRows(screen)
                return rows.contains { $0.hasPrefix("┆   original") && $0.hasSuffix(": see you there") }
                    && rows.contains { $0.hasPrefix("┆   edit 1") && $0.hasSuffix(": see you at one") }
            }, "\(pane.capture())")

        // When bob pins alice's question, the pinned bar shows it above the messages, and the entry its mark
        try Self.enter("/pin \(question)", in: pane)
        #expect(
            pane.waitFor { FullScreenEntriesTests.paneRows($0)[1].hasPrefix("📌 lunch at noon? — pinned by you ") },
            "\(pane.capture())")
        #expect(pane.waitFor { $0.contains("alice: lunch at noon? 📌") }, "\(pane.capture())")
        #expect(parley.eventually("alice", ["messages", chat, "--json"]) { $0.contains("\"pinnedBy\"") })

        // When bob deletes his answer for everyone, a tombstone stands in its place on both nodes
        try Self.enter("/delete \(answer)", in: pane)
        #expect(pane.waitFor { $0.contains("you: message deleted") }, "\(pane.capture())")
        #expect(!Self.rows(pane).contains { $0.contains("see you at one") }, "\(pane.capture())")
        #expect(parley.eventually("alice", ["messages", chat, "--json"]) { $0.contains("\"kind\":\"deleted\"") })

        // When alice replies to her question, bob's entry counts the reply
        try parley.client("alice", ["send", chat, "anyone?", "--ref", question])
        #expect(pane.waitFor { $0.contains("↳ 1 reply") }, "\(pane.capture())")

        // When bob opens the thread, it alone shows, named in the header, and what he types replies to it
        try Self.enter("/thread \(question)", in: pane)
        #expect(pane.waitFor { $0.contains("# Lunch › thread \(question)") }, "\(pane.capture())")
        #expect(!Self.rows(pane).contains { $0.contains("message deleted") }, "\(pane.capture())")
        try Self.enter("count me in", in: pane)
        #expect(pane.waitFor { $0.contains("you: count me in") && $0.contains("alice: anyone?") }, "\(pane.capture())")
        #expect(
            parley.eventually("alice", ["messages", chat, "--ref", question, "--json"]) {
                $0.contains("\"text\":\"count me in\"")
            })

        // When bob goes back, the whole chat shows again with both replies counted
        try Self.enter("/back", in: pane)
        #expect(
            pane.waitFor { $0.contains("you: message deleted") && $0.contains("↳ 2 replies") }, "\(pane.capture())")
        #expect(!pane.capture().contains("› thread"), "\(pane.capture())")

        // When bob unpins the question, the pinned bar goes
        try Self.enter("/unpin \(question)", in: pane)
        #expect(pane.waitFor { !$0.contains("pinned by you") }, "\(pane.capture())")

        // When bob searches the chat, the hits show as a notice with the words marked; /mute says what it did
        try Self.enter("/search noon", in: pane)
        #expect(pane.waitFor { $0.contains("«noon»") }, "\(pane.capture())")
        try Self.enter("/mute", in: pane)
        #expect(pane.waitFor { $0.contains("muted on this node") }, "\(pane.capture())")
        try Self.enter("/unmute", in: pane)
        #expect(pane.waitFor { $0.contains("unmuted on this node") }, "\(pane.capture())")

        // When alice mentions bob in the other chat, its line in the chat list counts the mention before the unread
        try parley.client("alice", ["send", session.plans, "@bob are you in?"])
        #expect(
            pane.waitFor { $0.split(separator: "\n").contains { $0.contains("Plans") && $0.contains(" @1 1 │") } },
            "\(pane.capture())")
    }
}
