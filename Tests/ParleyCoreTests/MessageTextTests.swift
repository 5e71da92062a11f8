import ParleyCore
import ParleyCrypto
import Testing

/// Every kind of message has one human line; none shows its binary encoding.
struct MessageTextTests {
    static let spec = PollSpec(question: "Where?", options: ["Lake", "Hills", "Town"])

    func message(_ tag: ParleyCore.Tag, _ content: [UInt8], by author: Identity = Fixtures.bob) throws -> Message {
        try MessageDraft(
            chat: Fixtures.invite.id, author: author.publicKey, sequence: 1, lamport: 1, timestampMillis: 0, tag: tag,
            content: content
        ).signed(by: author)
    }

    func render(_ message: Message, poll: Poll? = nil) -> String {
        MessageText.render(message, poll: poll) { $0 == Fixtures.alice.publicKey ? "alice" : "bob" }
    }

    @Test func eachKindReadsAsALine() throws {
        #expect(render(try message(.poll, try Self.spec.encoded())) == "📊 Where? (Lake · Hills · Town)")
        #expect(render(try message(.poll, Array("Pizza?".utf8))) == "📊 Pizza? (up/down)")
        let options = Poll.options(Self.spec)
        #expect(
            render(try message(.pollVote, try PollSelection.encode(["1", "3"])), poll: options) == "voted Lake · Town")
        #expect(render(try message(.pollVote, try PollSelection.encode([])), poll: options) == "withdrew their vote")
        #expect(render(try message(.pollVoteUp, [])) == "voted up")
        #expect(render(try message(.pollSuggestion, Array(" City ".utf8))) == "suggested 'City'")
        #expect(render(try message(.pollAnswer, Array("anything but rain".utf8))) == "answered: anything but rain")
        #expect(render(try message(.pollClose, [])) == "closed the poll")
        #expect(render(try message(.reaction, try ReactionContent.add(ReactionType("👍")).encoded())) == "reacted 👍")
        #expect(
            render(try message(.reaction, ReactionContent.removal(try ReactionType("👍")).encoded())) == "took back 👍")
        #expect(render(try message(.custom, Array(#"{"a":1}"#.utf8))) == #"{"a":1}"#)
        #expect(render(try message(try ParleyCore.Tag("Blob"), [0xFF, 0x00])) == "[Blob] (2 bytes)")
        let change = try MembershipChange.make(epoch: 1, members: [Fixtures.alice.publicKey, Fixtures.bob.publicKey]) {
            _ in
            [EpochKey(epoch: 1, key: try! ChatKey.generate())]
        }
        #expect(
            render(try message(.membership, change.encoded(), by: Fixtures.alice))
                == "members are now alice, bob (epoch 1)")
    }

    @Test func anAnonymousBallotDoesNotSayWhatItChose() throws {
        var spec = Self.spec
        spec.anonymous = true
        #expect(render(try message(.pollVote, try PollSelection.encode(["1"])), poll: .options(spec)) == "voted")
    }
}
