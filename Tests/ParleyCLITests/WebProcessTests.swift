import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// The web app through the real binary: `parley node --web`, `parley web`'s login URL, a browser's
/// login (the cookie) and an API call with it; the address file goes away with the node.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct WebProcessTests {
    @Test func aNodeServesTheWebAppAndParleyWebLogsABrowserIn() async throws {
        // Given alice's node serving the web app on loopback, with a chat
        let parley = try ParleyBinary()
        let base = Ports.base()
        _ = try parley.keygen("alice")
        let node = try parley.startNode("alice", listen: "127.0.0.1:\(base)", options: ["--web", "127.0.0.1:\(base + 1)"])
        defer { node.terminateAndWait() }
        let addressFile = parley.data("alice") + "/web-address"
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: addressFile), Date() < deadline { try await Task.sleep(for: .milliseconds(100)) }
        try parley.client("alice", ["chat", "create", "Lunch"])

        // When `parley web` prints the login URL
        let url = try parley.client("alice", ["web"])
        #expect(url.hasPrefix("http://127.0.0.1:\(base + 1)/login?token="))
        #expect(url.split(separator: "=").last?.count == 64)
        let mode = try FileManager.default.attributesOfItem(atPath: parley.data("alice") + "/web-token")[.posixPermissions] as? Int
        #expect(mode == 0o600)

        // Then opening it sets the session cookie and sends the browser to the page
        // No cookie store: each request carries exactly the cookie the test gives it.
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        let session = URLSession(configuration: configuration, delegate: NoRedirects(), delegateQueue: nil)
        let (_, login) = try await session.data(from: try #require(URL(string: url)))
        let loginResponse = try #require(login as? HTTPURLResponse)
        #expect(loginResponse.statusCode == 303)
        let cookie = try #require(loginResponse.value(forHTTPHeaderField: "Set-Cookie"))
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
        let sessionCookie = String(try #require(cookie.split(separator: ";").first))

        // and with the cookie the page lists alice's chats, as the control socket does
        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(base + 1)/api/chatList")))
        request.httpMethod = "POST"
        request.httpBody = Data("{}".utf8)
        request.setValue(sessionCookie, forHTTPHeaderField: "Cookie")
        let (body, listed) = try await session.data(for: request)
        #expect((listed as? HTTPURLResponse)?.statusCode == 200)
        let chats = try #require(try JSONSerialization.jsonObject(with: body) as? [[String: Any]])
        #expect(chats.map { $0["title"] as? String } == ["Lunch"])
        #expect(try parley.client("alice", ["chat", "list", "--json"]).contains(#""title":"Lunch""#))

        // and without it the API refuses
        request.setValue(nil, forHTTPHeaderField: "Cookie")
        let (_, refused) = try await session.data(for: request)
        #expect((refused as? HTTPURLResponse)?.statusCode == 401)

        // When the node stops, the address file goes, and `parley web` says the app is not served
        node.terminateAndWait()
        #expect(!FileManager.default.fileExists(atPath: addressFile))
        let stopped = #expect(throws: CommandFailed.self) { try parley.client("alice", ["web"]) }
        #expect(stopped?.stderr.contains("not serving the web app") == true)
    }
}

/// Keeps a 303 as it is, so the test sees the login's own response and cookie.
final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
