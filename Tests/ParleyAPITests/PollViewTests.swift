import ParleyAPI
import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Testing

/// One in-process node on an in-memory network, for requests and views that need no peer running.
enum APITestNode {
    static func make() throws -> Node {
        Node(
            configuration: NodeConfiguration(identity: try Identity.generate()), store: try MessageStore.inMemory(),
            transport: InMemoryNetwork().makeTransport())
    }
}

struct AnonymousPollTests {
    @Test func anAnonymousPollShowsNoVoterInResultsOrVoteLists() async throws {
        // Given an anonymous poll with one vote and one answer
        let node = try APITestNode.make()
        let chat = try await node.createChat(title: "Secret ballot", members: [try Identity.generate().publicKey])
        let spec = PollSpec(question: "Raise?", options: ["Yes", "No"], anonymous: true, allowAnswers: true)
        let poll = try await node.createPoll(chat: chat.id, spec: spec).message.id
        _ = try await node.vote(chat: chat.id, poll: poll, choices: ["Yes"])
        _ = try await node.answerPoll(chat: chat.id, poll: poll, text: "overdue")

        // Then the counts are there, but no identity
        let view = PollResultsView(
            try node.pollSnapshot(chat: chat.id, poll: poll), names: [node.me: "me"], myVote: nil)
        #expect(view.options?.map(\.votes) == [1, 0])
        #expect(view.voters.isEmpty)
        #expect(view.latestAnswers.allSatisfy { $0.author == nil && $0.authorName == nil })
        #expect(try node.pollVotes(chat: chat.id, poll: poll).items.allSatisfy { $0.author == nil })
        #expect(try node.pollVotes(chat: chat.id, poll: poll, answers: true).items.allSatisfy { $0.author == nil })
        // while this user still sees their own choice
        #expect(view.ownVotes == ["1"])
    }
}

struct ChatViewTests {
    @Test func aLegacyChatIsMarkedNotSealedAndAKeyedOneSealed() async throws {
        // Given a node holding a keyed chat it made and a legacy chat made before chat keys
        let node = try APITestNode.make()
        _ = try await node.createChat(title: "Keyed", members: [])
        let legacy = try ChatInvite.create(by: node.identity, title: "Old", members: [], createdAtMillis: 0)
        _ = try await node.store.saveChat(legacy, joinedAtMillis: 0)

        // Then the chat list says which is sealed end to end
        let list = try APIJSON.decode(
            APIResponse<[ChatView]>.self, from: await APIService(node: node, selfName: "me").respond(to: .chatList))
        let sealed = Dictionary(uniqueKeysWithValues: (list.result ?? []).map { ($0.title, $0.sealed) })
        #expect(sealed == ["Keyed": true, "Old": false])
    }
}

struct PollCreateResponseTests {
    @Test func creatingAnOptionsPollAnswersWithThePollsViewNotItsBytes() async throws {
        // Given a node and a chat
        let node = try APITestNode.make()
        let chat = try await node.createChat(title: "Trip", members: [try Identity.generate().publicKey])
        let service = APIService(node: node, selfName: "me")

        // When an options poll and a yes/no poll are created through the API
        let created = try APIJSON.decode(
            APIResponse<PollResultsView>.self,
            from: await service.respond(
                to: .pollCreate(
                    chat: "Trip", question: "Where?", options: ["Lake", "Hills"], description: nil, maxVotes: nil,
                    unique: true,
                    anonymous: nil, allowAnswers: nil, allowSuggestions: nil, closesAtMillis: nil)))
        let yesNo = try APIJSON.decode(
            APIResponse<PollResultsView>.self,
            from: await service.respond(
                to: .pollCreate(
                    chat: chat.id.hex, question: "Pizza?", options: nil, description: nil, maxVotes: nil, unique: nil,
                    anonymous: nil, allowAnswers: nil, allowSuggestions: nil, closesAtMillis: nil)))

        // Then each answer is the poll's view: its id, question, options and settings, nothing voted yet
        let poll = try #require(created.result)
        #expect(poll.kind == "options" && poll.question == "Where?" && poll.phase == .open)
        #expect(poll.options?.map(\.text) == ["Lake", "Hills"] && poll.options?.map(\.votes) == [0, 0])
        #expect(poll.settings?.unique == true && poll.totalVotes == 0)
        #expect(try node.resolveMessage(prefix: poll.id, in: chat.id).hex == poll.id)
        #expect(yesNo.result?.kind == "yesNo" && yesNo.result?.question == "Pizza?" && yesNo.result?.up == 0)
    }
}
