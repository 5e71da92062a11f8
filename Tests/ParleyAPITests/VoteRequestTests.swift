import ParleyAPI
import ParleyCore
import ParleyCrypto
import ParleyNode
import ParleyStore
import Testing

/// One `pollVote` request for every kind of poll: the node decides from the poll what the vote is.
struct VoteRequestTests {
    @Test func aYesNoVoteAnswersThePollAfterItAndTheVotesMessage() async throws {
        // Given a yes/no poll
        let node = try APITestNode.make()
        let service = APIService(node: node, selfName: "me")
        let chat = try await node.createChat(title: "Lunch", members: [try Identity.generate().publicKey])
        let poll = try await node.createPoll(chat: chat.id, question: "Pizza?").message.id

        // When this user votes up through the API
        let answer = await service.answer(to: .pollVote(chat: chat.id.hex, poll: poll.hex, choices: ["up"]))

        // Then the answer is the poll with the vote counted, and the vote's message; no secret ballot
        guard case let .success(json) = answer else { Issue.record("refused: \(answer)"); return }
        let vote = try APIJSON.decode(VoteView.self, from: json)
        #expect(vote.poll.up == 1 && vote.poll.ownVotes == ["up"])
        #expect(vote.message?.tag == "PollVoteUp")
        #expect(vote.secretBallot == nil)
    }

    @Test func keepingTheChoiceIsRefusedOnAPollThatIsNotSecret() async throws {
        // Given a yes/no poll
        let node = try APITestNode.make()
        let service = APIService(node: node, selfName: "me")
        let chat = try await node.createChat(title: "Lunch", members: [try Identity.generate().publicKey])
        let poll = try await node.createPoll(chat: chat.id, question: "Pizza?").message.id

        // When this user votes asking to keep the choice
        let answer = await service.answer(
            to: .pollVote(chat: chat.id.hex, poll: poll.hex, choices: ["up"], keepChoice: true))

        // Then it is refused as invalid, and no vote was sent
        guard case let .failure(failure) = answer else { Issue.record("answered: \(answer)"); return }
        #expect(failure.kind == .invalid)
        #expect(
            failure.message
                == "keepChoice (--keep-choice) is for secret polls: a vote on this poll is a message of yours")
        #expect(try node.pollSnapshot(chat: chat.id, poll: poll).tally?.up == 0)
    }
}
