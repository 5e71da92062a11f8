import Foundation
import ParleyAPI
import Testing

/// docs/openapi.yaml describes the routes the server has: every `/api/NAME` is a request the
/// dispatcher knows and answers once, and every such request is there.
struct OpenAPIDocumentTests {
    static let document: String = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return (try? String(contentsOf: root.appendingPathComponent("docs/openapi.yaml"), encoding: .utf8)) ?? ""
    }()

    /// The request names of the document's `/api/NAME:` paths.
    static var documentedRequests: [String] {
        document.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("  /api/"), line.hasSuffix(":") else { return nil }
            let name = String(line.dropFirst("  /api/".count).dropLast())
            return name == "ws" ? nil : name
        }
    }

    @Test func everyDocumentedRequestIsOneTheDispatcherAnswersOnce() {
        #expect(!Self.documentedRequests.isEmpty)
        for name in Self.documentedRequests {
            #expect(!APIRequest.streamingNames.contains(name), "\(name)")
            do {
                _ = try APIRequest.decode(name: name, body: Data("{}".utf8))
            } catch {
                // Malformed (values missing) still means the name is known.
                if case .unknownRequest = error { Issue.record("\(name) is no request") }
            }
        }
    }

    @Test func everyRequestAnsweredOnceIsDocumented() {
        // The cases of APIRequest that are answered once; a new case fails to decode its name here
        // until it is added to this list and to docs/openapi.yaml.
        let answeredOnce = [
            "status", "contactsAdd", "contactsList", "chatCreate", "chatList", "chatAddMembers", "chatRemoveMembers",
            "send",
            "messages", "read", "receipts", "pollCreate", "pollVote", "pollUnvote", "pollAnswer", "pollSuggest",
            "pollClose",
            "pollResults", "pollVotes", "react", "unreact", "reactions", "members", "typing", "invites", "inviteAccept",
            "inviteDecline", "localGet", "localSet", "edit", "delete", "deleteForMe", "pin", "pins", "thread", "edits",
            "search",
            "chatMute",
        ]
        #expect(Set(Self.documentedRequests) == Set(answeredOnce))
        #expect(Self.document.contains("  /api/ws:"))
    }
}
