import Foundation
@testable import ParleyAPI
import ParleyCore
import ParleyCrypto
import ParleyNode
import Testing

/// The entry point the HTTP front end uses: the same dispatcher, its typed result encoded on its own.
struct APIAnswerTests {
    @Test func theAnswerIsTheEnvelopesResultByteForByte() async throws {
        let node = try APITestNode.make()
        let service = APIService(node: node, selfName: "me")
        _ = try await node.createChat(title: "Lunch", members: [])
        let request = APIRequest.chatList
        let line = await service.respond(to: request)
        guard case let .success(json) = await service.answer(to: request) else { Issue.record("failed"); return }
        #expect(line == #"{"ok":true,"result":"# + json + "}")
        #expect(try APIJSON.decode([ChatView].self, from: json).map(\.title) == ["Lunch"])
    }

    @Test func aFailureKeepsItsKindAndMessage() async throws {
        let service = APIService(node: try APITestNode.make(), selfName: "me")
        let answer = await service.answer(to: .messages(chat: "Nowhere", tag: nil, ref: nil, refTag: nil, limit: nil))
        guard case let .failure(failure) = answer else { Issue.record("answered"); return }
        #expect(failure.kind == .notFound)
        #expect(failure.message.contains("Nowhere"))
    }

    @Test func aRequestIsDecodedFromItsNameAndBody() throws {
        #expect(try APIRequest.decode(name: "chatList", body: Data("{}".utf8)) == .chatList)
        #expect(try APIRequest.decode(name: "status", body: Data()) == .status)
        #expect(
            try APIRequest.decode(name: "send", body: Data(#"{"chat":"c","text":"t","tag":null,"refs":[]}"#.utf8))
                == .send(chat: "c", text: "t", tag: nil, refs: []))
        #expect(
            try APIRequest.decode(name: "typing", body: Data(#"{"chat":"c","active":true}"#.utf8))
                == .typing(chat: "c", active: true))
    }

    @Test(arguments: ["nope", "ChatList", "chat-list", "", "1status", "status\"", "chatList\":{},\"x"])
    func anUnknownNameIsToldApartFromABadBody(name: String) {
        #expect(throws: APIRequestDecodingError.unknownRequest(name)) {
            try APIRequest.decode(name: name, body: Data("{}".utf8))
        }
    }

    @Test(arguments: ["{", "[]", "5", "{\"chat\":1,\"text\":\"t\",\"refs\":[]}", "{\"text\":\"t\"}", "{} {}"])
    func aBadBodyForAKnownRequestIsMalformed(body: String) {
        #expect {
            try APIRequest.decode(name: "send", body: Data(body.utf8))
        } throws: { error in
            guard case .malformed = error as? APIRequestDecodingError else { return false }
            return true
        }
    }

    @Test func theStreamingNamesAreTheStreamingRequests() throws {
        for name in APIRequest.streamingNames {
            let request = try APIRequest.decode(name: name, body: Data(#"{"chat":"c"}"#.utf8))
            #expect(request.isStreaming)
        }
        #expect(!APIRequest.chatList.isStreaming)
    }
}
