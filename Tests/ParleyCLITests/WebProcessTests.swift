import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Testing

/// The web app through the real binary: `parley node --web`, `parley web`'s one-time login link, a
/// browser's login (the cookie and the proof) and an API call with it, `parley web --revoke` on the
/// running node and on a stopped one; the address file goes away with the node.
@Suite(.serialized, .processSuiteLimit)
struct WebProcessTests {
    @Test func aNodeServesTheWebAppAndParleyWebLogsABrowserInOnceUntilRevoked() async throws {
        // Given alice's node serving the web app on loopback, with a chat
        let parley = try ParleyBinary()
        let base = Ports.base()
        _ = try parley.keygen("alice")
        let node = try parley.startNode(
            "alice", listen: "127.0.0.1:\(base)", options: ["--web", "127.0.0.1:\(base + 1)"])
        defer { node.terminateAndWait() }
        let addressFile = parley.data("alice") + "/web-address"
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: addressFile), Date() < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        try parley.client("alice", ["chat", "create", "Lunch"])

        // When `parley web` prints a login link: a one-time code, not the token
        let url = try parley.client("alice", ["web"])
        #expect(url.hasPrefix("http://127.0.0.1:\(base + 1)/login?code="))
        #expect(url.split(separator: "=").last?.count == 64)
        let tokenPath = parley.data("alice") + "/web-token"
        let token = try String(contentsOfFile: tokenPath, encoding: .utf8).trimmingCharacters(
            in: .whitespacesAndNewlines)
        #expect(!url.contains(token))
        let mode = try FileManager.default.attributesOfItem(atPath: tokenPath)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        // Then opening it sets the session cookie and hands the page its proof, once
        // No cookie store: each request carries exactly the cookie the test gives it.
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        let session = URLSession(configuration: configuration, delegate: NoRedirects(), delegateQueue: nil)
        let (page, login) = try await session.data(from: try #require(URL(string: url)))
        let loginResponse = try #require(login as? HTTPURLResponse)
        #expect(loginResponse.statusCode == 200)
        let cookie = try #require(loginResponse.value(forHTTPHeaderField: "Set-Cookie"))
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
        #expect(!cookie.contains(token))
        let sessionCookie = String(try #require(cookie.split(separator: ";").first))
        let html = String(decoding: page, as: UTF8.self)
        let proofStart = try #require(html.range(of: #"name="parley-session-proof" content=""#))
        let proof = String(html[proofStart.upperBound...].prefix(64))
        let (_, again) = try await session.data(from: try #require(URL(string: url)))
        #expect((again as? HTTPURLResponse)?.statusCode == 403)

        // and with the cookie and the proof the page lists alice's chats, as the control socket does
        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(base + 1)/api/chatList")))
        request.httpMethod = "POST"
        request.httpBody = Data("{}".utf8)
        request.setValue(sessionCookie, forHTTPHeaderField: "Cookie")
        request.setValue("Session \(proof)", forHTTPHeaderField: "Authorization")
        let (body, listed) = try await session.data(for: request)
        #expect((listed as? HTTPURLResponse)?.statusCode == 200)
        let chats = try #require(try JSONSerialization.jsonObject(with: body) as? [[String: Any]])
        #expect(chats.map { $0["title"] as? String } == ["Lunch"])
        #expect(try parley.client("alice", ["chat", "list", "--json"]).contains(#""title":"Lunch""#))

        // and without the proof the API refuses
        var cookieOnly = request
        cookieOnly.setValue(nil, forHTTPHeaderField: "Authorization")
        let (_, refused) = try await session.data(for: cookieOnly)
        #expect((refused as? HTTPURLResponse)?.statusCode == 401)

        // When alice revokes, the running node ends the session and the token changes at once
        let revoked = try parley.client("alice", ["web", "--revoke"])
        #expect(revoked == "revoked: 1 web session ended in the running node, and a new token is in \(tokenPath)")
        let (_, afterRevoke) = try await session.data(for: request)
        #expect((afterRevoke as? HTTPURLResponse)?.statusCode == 401)
        #expect(
            try String(contentsOfFile: tokenPath, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
                != token)

        // When the node stops, the address file goes, `parley web` says the app is not served, and a
        // revoke works on the files
        node.terminateAndWait()
        #expect(!FileManager.default.fileExists(atPath: addressFile))
        let stopped = #expect(throws: CommandFailed.self) { try parley.client("alice", ["web"]) }
        #expect(stopped?.stderr.contains("not serving the web app") == true)
        #expect(
            try parley.client("alice", ["web", "--revoke"])
                == "revoked: 0 web sessions ended, and a new token is in \(tokenPath) (no node was serving the web app)"
        )
    }
}

/// Keeps a redirect as it is, so the test sees each response and its cookie.
final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
