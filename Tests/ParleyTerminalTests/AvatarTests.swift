import Testing
@testable import ParleyTerminal

/// Each author's initial on a colour derived from their peer id.
struct AvatarTests {
    @Test func theColourComesFromThePeerIdAloneAndIsOneOfThePalette() {
        let alice = "3f2a9c01" + String(repeating: "ab", count: 28)
        #expect(Avatar.color(forPeer: alice) == Avatar.color(forPeer: alice))
        #expect(Avatar.color(forPeer: alice) == Avatar.palette[Int(UInt32(0x3f2a_9c01) % 14)])
        // The first 8 hex digits pick it: ids that differ there get the palette's entries in turn
        let colours = (0..<14).map { Avatar.color(forPeer: "0000000" + String($0, radix: 16) + "ff") }
        #expect(colours == Avatar.palette)
    }

    @Test func anIdThatIsNotHexStillGetsAStableColour() {
        for peer in ["", "not hex at all", "zz"] {
            #expect(Avatar.palette.contains(Avatar.color(forPeer: peer)))
            #expect(Avatar.color(forPeer: peer) == Avatar.color(forPeer: peer))
        }
    }

    @Test func theInitialIsTheNamesFirstLetterUpperCasedAndNeverAControlCharacter() {
        #expect(Avatar.initial(of: "alice") == "A")
        #expect(Avatar.initial(of: "élodie") == "É")
        #expect(Avatar.initial(of: "") == "?")
        #expect(Avatar.initial(of: "\u{1B}[2J") == "\u{FFFD}")
    }

    @Test func anotherAuthorsNameFollowsTheirInitialOnTheirColourAndOwnMessagesHaveNone() {
        let peer = "0000000a" + String(repeating: "00", count: 28)
        let state = ScreenState(entries: [
            .message(ScreenState.Message(author: "alice", text: "hi", authorID: peer)),
            .message(ScreenState.Message(author: "you", text: "hello", isOwn: true, authorID: "0000000b")),
        ])
        let rendered = ScreenRenderer.render(state, width: 40, height: 10)
        let rows = rendered.grid.plainText.split(separator: "\n", omittingEmptySubsequences: false)
        let row = try! #require(rows.firstIndex { $0.hasPrefix("A alice: hi") })
        #expect(rows[row + 1] == "you: hello")
        let initial = rendered.grid[row, 0].style
        #expect(initial.background == Avatar.palette[10] && initial.foreground == .black && initial.bold)
        // The name takes the avatar's colour too
        #expect(rendered.grid[row, 2].style.foreground == Avatar.palette[10])
    }
}
