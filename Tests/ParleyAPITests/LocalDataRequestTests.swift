import ParleyAPI
import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import Testing

/// Local data through the one API: listed and deleted like the other requests, and the node's own
/// keys (the vote guard) readable but never set or deleted from outside.
struct LocalDataRequestTests {
    func answer<Result: Codable & Sendable>(_ request: APIRequest, on service: APIService, as type: Result.Type)
        async throws -> APIResponse<Result>
    {
        try APIJSON.decode(APIResponse<Result>.self, from: await service.respond(to: request))
    }

    @Test func listAndDeleteAreRequestsInTheSameJSONFormAsTheOthers() throws {
        // Each is an object keyed by the request's name, its arguments as fields
        #expect(try APIJSON.encode(APIRequest.localList(message: "ab12")) == #"{"localList":{"message":"ab12"}}"#)
        #expect(
            try APIJSON.encode(APIRequest.localDelete(message: "ab12", key: "note"))
                == #"{"localDelete":{"key":"note","message":"ab12"}}"#)
        #expect(
            try APIJSON.decode(APIRequest.self, from: #"{"localDelete":{"message":"ab12","key":"note"}}"#)
                == .localDelete(message: "ab12", key: "note"))
    }

    @Test func aMessagesValuesAreListedByKeyAndADeleteSaysWhatItRemoved() async throws {
        // Given a message with two local values
        let node = try APITestNode.make()
        let service = APIService(node: node, selfName: "me")
        let chat = try await node.createChat(title: "Notes", members: [])
        let message = try await node.sendText(chat: chat.id, "pizza?").message.id.hex
        _ = try await answer(.localSet(message: message, key: "star", value: "1"), on: service, as: LocalDataView.self)
        _ = try await answer(
            .localSet(message: message, key: "note", value: "vegan"), on: service, as: LocalDataView.self)

        // When the list is asked for, then the note deleted twice
        let listed = try await answer(.localList(message: message), on: service, as: [LocalDataView].self).result
        let deleted = try await answer(.localDelete(message: message, key: "note"), on: service, as: LocalDataView.self)
            .result
        let again = try await answer(.localDelete(message: message, key: "note"), on: service, as: LocalDataView.self)
            .result

        // Then the list is sorted by key, the first delete returns the value, the second none
        #expect(listed?.map(\.key) == ["note", "star"])
        #expect(listed?.map(\.value) == ["vegan", "1"])
        #expect(deleted?.value == "vegan")
        #expect(again != nil && again?.value == nil)
        #expect(
            try await answer(.localList(message: message), on: service, as: [LocalDataView].self).result?.map(\.key)
                == ["star"])
    }

    @Test func theNodesOwnKeysCanBeReadButNeitherSetNorDeleted() async throws {
        // Given a yes/no poll this node voted up on
        let node = try APITestNode.make()
        let service = APIService(node: node, selfName: "me")
        let chat = try await node.createChat(title: "Lunch", members: [])
        let poll = try await node.createPoll(chat: chat.id, question: "Pizza?").id
        _ = try await node.vote(chat: chat.id, poll: poll, choices: ["up"])

        // When the vote guard is overwritten, deleted, or a ballot key set
        let set = try await answer(
            .localSet(message: poll.hex, key: LocalDataKey.pollVote, value: "down"), on: service, as: String.self)
        let delete = try await answer(
            .localDelete(message: poll.hex, key: LocalDataKey.pollVote), on: service, as: String.self)
        let ballot = try await answer(
            .localSet(message: poll.hex, key: LocalDataKey.pollBallot, value: "x"), on: service, as: String.self)

        // Then each is refused as invalid, saying why
        for refused in [set, delete, ballot] { #expect(!refused.ok && refused.kind == .invalid) }
        #expect(
            set.error
                == "'pollVote' is Parley's own local data (the guard against a second vote on a yes/no poll); it cannot be set by hand"
        )
        #expect(delete.error?.contains("cannot be deleted by hand") == true)
        // And the guard still holds: it reads "up", is listed, and a second vote is still refused
        #expect(
            try await answer(
                .localGet(message: poll.hex, key: LocalDataKey.pollVote), on: service, as: LocalDataView.self
            ).result?.value == "up")
        #expect(
            try await answer(.localList(message: poll.hex), on: service, as: [LocalDataView].self).result?.map(\.key)
                == ["pollVote"])
        #expect(
            try await answer(.pollVote(chat: "Lunch", poll: poll.hex, choices: ["down"]), on: service, as: String.self)
                .kind == .conflict)
    }
}
