import Foundation
@testable import ParleyAPI
import ParleyNode
import Testing

/// Request lines as a peer written from docs/PROTOCOL.md §14 sends them: optional values left out,
/// and a line that does not fit its request told apart by the field at fault.
struct RequestDecodingTests {
    /// The error text of a control socket failure line.
    private static func errorText(_ line: String) throws -> String {
        struct Envelope: Decodable {
            let ok: Bool
            let error: String?
            let kind: String?
        }
        switch APIService.parse(line) {
        case .success: throw TestFailure("the line decoded: \(line)")
        case let .failure(bad):
            let envelope = try APIJSON.decode(Envelope.self, from: bad.line)
            #expect(envelope.ok == false)
            #expect(envelope.kind == "invalid")
            return envelope.error ?? ""
        }
    }

    private struct TestFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    @Test func aSendWithoutRefsHasNoReferences() async throws {
        // Given a node and a chat of its own
        let node = try APITestNode.make()
        let service = APIService(node: node, selfName: "me")
        _ = try await node.createChat(title: "Lunch", members: [])

        // When a send leaves out `refs` (and `tag`), on the control socket and over HTTP
        guard case let .success(request) = APIService.parse(#"{"send":{"chat":"Lunch","text":"hi"}}"#) else {
            Issue.record("a send without refs was refused")
            return
        }
        let overHTTP = try APIRequest.decode(name: "send", body: Data(#"{"chat":"Lunch","text":"again"}"#.utf8))

        // Then both are sent, as Text messages without references
        for request in [request, overHTTP] {
            guard case let .success(json) = await service.answer(to: request) else {
                Issue.record("the send failed: \(request)")
                continue
            }
            let sent = try APIJSON.decode(MessageView.self, from: json)
            #expect(sent.references.isEmpty)
            #expect(sent.tag == "Text")
        }
    }

    @Test(arguments: [
        (#"{"send":{"text":"hi"}}"#, #"missing field "chat" in send"#),
        (#"{"send":{"chat":"Lunch"}}"#, #"missing field "text" in send"#),
        (#"{"send":{"chat":1,"text":"hi"}}"#, #"field "chat" in send: expected a string"#),
        (#"{"send":{"chat":null,"text":"hi"}}"#, #"field "chat" in send: expected a string, found null"#),
        (#"{"send":{"chat":"Lunch","text":"hi","refs":"ab"}}"#, #"field "refs" in send: expected an array"#),
        (#"{"send":{"chat":"Lunch","text":"hi","refs":[1]}}"#, #"field "refs[0]" in send: expected a string"#),
        (#"{"typing":{"chat":"Lunch","active":"yes"}}"#, #"field "active" in typing: expected true or false"#),
        (#"{"read":{"chat":"Lunch","upTo":"last"}}"#, #"field "upTo" in read: expected an integer"#),
        (#"{"send":5}"#, #"the value of send must be a JSON object"#),
        (#"{"sendd":{"chat":"Lunch","text":"hi"}}"#, #"no request named "sendd""#),
        (#"{"send":{},"read":{}}"#, #"a request is a JSON object with one key, the request's name"#),
        ("{", "the line is not JSON"),
    ])
    func aBadLineNamesWhatIsWrong(line: String, expected: String) throws {
        let text = try Self.errorText(line)
        #expect(text.hasPrefix("bad request: "), "\(text)")
        #expect(text.contains(expected), "\(text)")
    }

    @Test func theHTTPFrontEndNamesTheFieldTheSameWay() {
        #expect(throws: APIRequestDecodingError.malformed(#"missing field "chat" in send"#)) {
            try APIRequest.decode(name: "send", body: Data(#"{"text":"hi"}"#.utf8))
        }
        #expect(throws: APIRequestDecodingError.malformed(#"field "refs[0]" in send: expected a string"#)) {
            try APIRequest.decode(name: "send", body: Data(#"{"chat":"c","text":"hi","refs":[true]}"#.utf8))
        }
    }
}
