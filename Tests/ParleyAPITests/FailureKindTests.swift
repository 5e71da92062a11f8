import ParleyAPI
import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import Testing

/// Every failed request says what kind of failure it is, so front ends can tell them apart.
struct FailureKindTests {
    func failure(_ request: APIRequest, on service: APIService) async throws -> (kind: APIFailure.Kind?, error: String?)
    {
        let response = try APIJSON.decode(APIResponse<String>.self, from: await service.respond(to: request))
        #expect(!response.ok)
        return (response.kind, response.error)
    }

    @Test func eachRefusalCarriesItsKindAndAMessage() async throws {
        // Given a node with a chat and a yes/no poll it already voted on
        let node = try APITestNode.make()
        let service = APIService(node: node, selfName: "me")
        let chat = try await node.createChat(title: "Lunch", members: [])
        let poll = try await node.createPoll(chat: chat.id, question: "Pizza?")
        _ = try await node.vote(chat: chat.id, poll: poll.id, choices: ["up"])

        // Then a second vote is a conflict, an unknown message not found, a bad choice invalid
        #expect(
            try await failure(.pollVote(chat: "Lunch", poll: poll.id.hex, choices: ["down"]), on: service).kind
                == .conflict)
        #expect(try await failure(.pollResults(chat: "Lunch", poll: "abcdef12"), on: service).kind == .notFound)
        #expect(
            try await failure(.pollVote(chat: "Lunch", poll: poll.id.hex, choices: ["sideways"]), on: service).kind
                == .invalid)
        #expect(try await failure(.contactsAdd(peer: "not hex", name: "x", address: nil), on: service).kind == .invalid)
        // And a line that is no request at all is invalid too, with a message
        guard case let .failure(bad) = APIService.parse("{\"nope\":{}}") else { Issue.record("parsed"); return }
        #expect(bad.line.contains(#""kind":"invalid""#))
    }

    @Test func kindsMapToDistinctStatusesAndExitCodes() throws {
        let kinds = APIFailure.Kind.allCases
        #expect(Set(kinds.map(\.httpStatus)).count == kinds.count)
        #expect(Set(kinds.map(\.exitCode)).count == kinds.count)
        #expect(
            APIFailure(NodeError.notAMember(try ChatID(rawRepresentation: [UInt8](repeating: 1, count: 32)))).kind
                == .forbidden)
    }
}
