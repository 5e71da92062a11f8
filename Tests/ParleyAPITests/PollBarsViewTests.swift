import ParleyAPI
import ParleyCore
import ParleyCrypto
import ParleyNode
import ParleyStore
import Testing

/// The results view carries the bar rule's output (`bars`), which the full screen and the page draw.
struct PollBarsViewTests {
    @Test func theViewsBarsGiveEachOptionsShareAndStarTheSoleLeaderOnlyOnceClosed() async throws {
        // Given an options poll of up to two choices, with one ballot of Lake and Hills
        let node = try APITestNode.make()
        let chat = try await node.createChat(title: "Trip", members: [try Identity.generate().publicKey])
        let spec = PollSpec(question: "Where?", options: ["Lake", "Hills", "Town"], maxVotes: 2)
        let poll = try await node.createPoll(chat: chat.id, spec: spec).message.id
        _ = try await node.vote(chat: chat.id, poll: poll, choices: ["Lake", "Hills"])
        func view() throws -> PollResultsView {
            PollResultsView(try node.pollSnapshot(chat: chat.id, poll: poll), names: [:], myVote: nil)
        }

        // Then while it is open the bars are the shares of the one ballot, and nobody is starred (a tie, and open)
        let open = try view()
        #expect(open.bars.map(\.choice) == open.options?.map(\.id))
        #expect(open.bars.map(\.share) == [1, 1, 0] && open.bars.allSatisfy { !$0.winner })
        #expect(open.options?.map(\.ratio) == [1, 1, 0])

        // When it is closed, the tie at the top still stars nobody, though `winners` lists both (POLLS.md)
        _ = try await node.closePoll(chat: chat.id, poll: poll)
        let closed = try view()
        #expect(closed.bars.allSatisfy { !$0.winner } && closed.winners.count == 2)
    }

    @Test func aYesNoPollsBarsAreUpThenDownWithTheStarOnlyAfterTheClose() async throws {
        let node = try APITestNode.make()
        let chat = try await node.createChat(title: "Lunch", members: [try Identity.generate().publicKey])
        let poll = try await node.createPoll(chat: chat.id, question: "Pizza?").message.id
        _ = try await node.vote(chat: chat.id, poll: poll, choices: ["up"])
        func view() throws -> PollResultsView {
            PollResultsView(try node.pollSnapshot(chat: chat.id, poll: poll), names: [:], myVote: nil)
        }

        #expect(try view().bars.map(\.choice) == ["up", "down"])
        #expect(
            try view().bars.map(\.votes) == [1, 0] && view().bars.map(\.share) == [1, 0]
                && view().bars.map(\.winner) == [false, false])
        _ = try await node.closePoll(chat: chat.id, poll: poll)
        #expect(try view().bars.map(\.winner) == [true, false])
    }
}
