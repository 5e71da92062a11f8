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

    /// The `/api` paths that are routes of their own rather than requests.
    static let routes = ["/api/ws", "/api/upload", "/api/files/{chat}/{file}", "/api/pictures/{chat}/{file}"]

    /// The request names of the document's `/api/NAME:` paths.
    static var documentedRequests: [String] {
        document.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("  /api/"), line.hasSuffix(":") else { return nil }
            let path = String(line.dropFirst(2).dropLast())
            return routes.contains(path) ? nil : String(path.dropFirst("/api/".count))
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
            "chatMute", "files", "file", "fileFetch",
        ]
        #expect(Set(Self.documentedRequests) == Set(answeredOnce))
        for route in Self.routes { #expect(Self.document.contains("  \(route):"), "\(route)") }
    }

    @Test func theRequestsRefusedOverHTTPAreNotListedAsRequests() {
        // They answer 403 (APIRoutes); the document says so in a comment and lists their replacements.
        for name in APIRequest.machinePathNames.union(APIRequest.ownerOnlyNames) {
            #expect(!Self.documentedRequests.contains(name), "\(name)")
        }
    }
}
