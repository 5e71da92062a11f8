import Foundation
import HTTPTypes
import HummingbirdTesting
import ParleyAPI
@testable import ParleyHTTP
import ParleyNode
import Testing

/// `POST /api/{request}`: the same requests and results as the control socket; every bad input a
/// 4xx with a JSON error, never a 500 and never a change.
struct APIRouteTests {
    @Test func aRequestAnswersTheBareResultTheControlSocketWraps() async throws {
        let server = try await WebTestServer.start()
        let created = try await server.api("chatCreate", #"{"title":"Lunch","members":[]}"#)
        #expect(created.status == .ok)
        #expect(created.headers[.contentType] == "application/json; charset=utf-8")
        #expect(created.object["title"] as? String == "Lunch")

        let sent = try await server.api("send", #"{"chat":"Lunch","text":"hi","tag":null,"refs":[]}"#)
        #expect(sent.status == .ok)
        // The same request on the control socket: {"ok":true,"result":<this very text>}
        let listed = try await server.api("messages", #"{"chat":"Lunch","limit":50}"#)
        let line = await server.service.respond(
            to: .messages(chat: "Lunch", tag: nil, ref: nil, refTag: nil, limit: 50))
        #expect(line == #"{"ok":true,"result":"# + listed.text + "}")
    }

    @Test func anUnknownRequestOrRouteIsNotFound() async throws {
        let server = try await WebTestServer.start()
        for name in ["nope", "ChatList", "chat-list", "%7B%7D"] {
            let response = try await server.api(name)
            #expect(response.status == .notFound, "\(name)")
            #expect(response.errorKind == "notFound")
        }
        let route = try await server.send(.get, "/nothing/here")
        #expect(route.status == .notFound)
        #expect(route.errorKind == "notFound")
        // A streaming request is not a POST route: it says where to go
        let watch = try await server.api("watch", #"{"chat":"x"}"#)
        #expect(watch.status == .notFound)
        #expect(watch.text.contains("/api/ws"))
    }

    @Test(arguments: [
        "{", "[]", "42", "\"text\"", "{\"title\":5,\"members\":[]}", "{\"members\":[]}", "\u{FF}\u{FE}", "null",
    ])
    func malformedJSONIsABadRequestThatChangesNothing(body: String) async throws {
        let server = try await WebTestServer.start()
        let response = try await server.api("chatCreate", body)
        #expect(response.status == .badRequest)
        #expect(response.errorKind == "invalid")
        #expect(try server.node.chats().isEmpty)
    }

    /// Found by schemathesis against docs/openapi.yaml: an empty reference crashed the node.
    @Test(arguments: [#"[""]"#, #"[":"]"#, #"["\u00ad"]"#, #"[":Text"]"#])
    func aMalformedReferenceIsRefusedAndTheNodeStaysUp(refs: String) async throws {
        let server = try await WebTestServer.start()
        _ = try await server.api("chatCreate", #"{"title":"Lunch","members":[]}"#)
        let response = try await server.api("send", #"{"chat":"Lunch","text":"hi","refs":\#(refs)}"#)
        #expect(response.status.code >= 400 && response.status.code < 500)
        #expect(try await server.api("chatList").status == .ok)
    }

    @Test func anEmptyBodyIsARequestWithoutValues() async throws {
        let server = try await WebTestServer.start()
        let response = try await server.send(.post, "/api/contactsList", bearer: server.token.hex)
        #expect(response.status == .ok)
        #expect(response.text == "[]")
    }

    @Test func aBodyOverOneMebibyteIsTooLarge() async throws {
        let server = try await WebTestServer.start()
        let text = String(repeating: "a", count: (1 << 20) + 16)
        let response = try await server.api("chatCreate", #"{"title":"\#(text)","members":[]}"#)
        #expect(response.status == .contentTooLarge)
        #expect(response.errorKind == "tooLarge")
        #expect(try server.node.chats().isEmpty)
        // and the server still answers
        #expect(try await server.api("chatList").status == .ok)
    }

    @Test(arguments: [HTTPRequest.Method.get, .put, .delete, .patch, .trace, .options])
    func anotherMethodOnAnAPIRouteIsNotAllowed(method: HTTPRequest.Method) async throws {
        let server = try await WebTestServer.start()
        let response = try await server.send(
            method, "/api/chatList", body: method == .get ? nil : "{}", bearer: server.token.hex)
        #expect(response.status == .methodNotAllowed)
        #expect(response.headers[.allow] == "POST")
        #expect(response.errorKind == "methodNotAllowed")
        // and the page's paths take GET only
        for path in ["/", "/app.js", "/login"] {
            let page = try await server.send(method == .get ? .post : method, path, body: "{}")
            #expect(page.status == .methodNotAllowed, "\(path)")
            #expect(page.headers[.allow] == "GET")
        }
        let socket = try await server.send(.post, "/api/ws", body: "{}", bearer: server.token.hex)
        #expect(socket.status == .methodNotAllowed)
        #expect(socket.headers[.allow] == "GET")
    }

    @Test func refusalsOfTheNodeCarryTheirKindsStatus() async throws {
        let server = try await WebTestServer.start()
        _ = try await server.api("chatCreate", #"{"title":"Lunch","members":[]}"#)
        let poll = try await server.api("pollCreate", #"{"chat":"Lunch","question":"Pizza?"}"#)
        let pollID = try #require(poll.object["id"] as? String)
        #expect(
            try await server.api("pollVote", #"{"chat":"Lunch","poll":"\#(pollID)","choices":["up"]}"#).status == .ok)

        let conflict = try await server.api("pollVote", #"{"chat":"Lunch","poll":"\#(pollID)","choices":["down"]}"#)
        #expect(conflict.status == .conflict)
        #expect(conflict.errorKind == "conflict")
        let notFound = try await server.api("messages", #"{"chat":"Dinner"}"#)
        #expect(notFound.status == .notFound)
        #expect(notFound.errorKind == "notFound")
        let invalid = try await server.api("pollVote", #"{"chat":"Lunch","poll":"\#(pollID)","choices":["sideways"]}"#)
        #expect(invalid.status == .badRequest)
        #expect(invalid.errorKind == "invalid")
        let message = try #require((invalid.object["error"] as? [String: Any])?["message"] as? String)
        #expect(!message.isEmpty)
    }

    @Test(arguments: APIFailure.Kind.allCases)
    func eachFailureKindIsAnsweredWithItsStatus(kind: APIFailure.Kind) throws {
        #expect(WebResponses.status(of: kind).code == kind.httpStatus)
        let text = WebResponses.errorBody(kind: kind.rawValue, message: "because")
        let body = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: [String: String]])
        #expect(body == ["error": ["kind": kind.rawValue, "message": "because"]])
    }
}
