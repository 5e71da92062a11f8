import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Testing

/// `Node.liveMessages(matching:)`: a criteria query that keeps answering as messages are stored.
struct LiveQueryTests {
    @Test func aLiveQueryYieldsOnlyNewMatchesFromPeersAndItselfAndMarksNothingRead() async throws {
        // Given alice, bob and carol in a chat holding a poll and a matching vote from before the query starts
        let bed = try await PumpedPeers.make(count: 3)
        let (alice, bob, carol) = (bed.peers[0].node, bed.peers[1].node, bed.peers[2].node)
        try await bed.running {
            let chat = try await alice.createChat(title: "live", members: [bob.me, carol.me])
            let poll = try await alice.createPoll(chat: chat.id, question: "Pizza?").message.id
            let otherPoll = try await alice.createPoll(chat: chat.id, question: "Pasta?").message.id
            try await bed.settle()
            _ = try await carol.postVote(chat: chat.id, poll: poll, choices: ["down"])
            try await bed.settle()

            // When bob watches the votes on the first poll, and both post votes, texts and a custom tag
            let live = bob.liveMessages(
                matching: MessageCriteria(chat: chat.id, referencing: poll, referenceTag: .pollVoteDown))
            var matches = live.makeAsyncIterator()
            let custom = bob.liveMessages(matching: MessageCriteria(chat: chat.id, tag: try Tag("Sticker")))
            var stickers = custom.makeAsyncIterator()
            _ = try await alice.sendText(chat: chat.id, "not a vote")
            _ = try await alice.postVote(chat: chat.id, poll: otherPoll, choices: ["down"])
            let aliceDown = try await alice.postVote(chat: chat.id, poll: poll, choices: ["down"])
            let sticker = try await alice.send(chat: chat.id, tag: try Tag("Sticker"), content: Array("quack".utf8))
            try await bed.settle()
            let bobDown = try await bob.postVote(chat: chat.id, poll: poll, choices: ["down"])

            // Then the query yields exactly the new matches, in the order bob stored them
            #expect(try await matches.next()?.id == aliceDown.id)
            #expect(try await matches.next()?.id == bobDown.id)
            #expect(try await stickers.next()?.id == sticker.id)
            // and nothing it yielded was marked read
            #expect(try bob.store.readMarker(chat: chat.id) == 0)
        }
    }
}
