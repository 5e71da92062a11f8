import ParleyCore
import ParleyCrypto
import Testing

/// Mentions travel as member ids (PROTOCOL.md §13d): resolved from `@name` at send, shown by name.
struct MentionsTests {
    let bob = try! Identity.generate().publicKey
    let bobby = try! Identity.generate().publicKey

    @Test func aNameBecomesItsMembersTokenAndTheLongestNameWins() {
        let text = Mentions.resolving(
            "hi @Bobby and @bob, not @carol or me@bobx", members: [(bob, "bob"), (bobby, "bobby")])
        #expect(text == "hi \(Mentions.token(for: bobby)) and \(Mentions.token(for: bob)), not @carol or me@bobx")
        #expect(Mentions.mentioned(in: text) == [bobby, bob])
    }

    @Test func renamingAContactChangesHowAMentionShowsNotWhomItNames() {
        let sent = Mentions.resolving("ask @bob", members: [(bob, "bob")])
        #expect(Mentions.rendered(sent) { $0 == bob ? "bob" : "?" } == "ask @bob")
        #expect(Mentions.rendered(sent) { $0 == bob ? "Robert" : "?" } == "ask @Robert")
        #expect(Mentions.mentioned(in: sent) == [bob])
    }

    @Test func aMalformedTokenIsPlainText() {
        let hex = bob.hex
        for text in ["<@\(hex.uppercased())>", "<@\(hex.dropLast())>", "<@\(hex)", "<@ \(hex)>", "<@\(hex)x>"] {
            #expect(Mentions.mentioned(in: text).isEmpty, "\(text)")
            #expect(Mentions.rendered(text) { _ in "bob" } == text)
        }
        #expect(Mentions.mentioned(in: "<@<@\(hex)>") == [bob])
    }
}
