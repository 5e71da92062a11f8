import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import ParleyAPI
import ParleyCrypto
import ParleyHTTP
import ParleyNode
import ParleyStore
import ParleyTestKit

/// A node with an in-memory store and the web app served on a real loopback port (port 0), for
/// one test, with a browser's login (`page`) already made. Requests go through a raw HTTP client,
/// so a test can send any Host or Origin.
final class WebTestServer: Sendable {
    let node: Node
    let service: APIService
    let access: WebAccess
    let address: WebAddress
    /// A session opened the way a browser opens one: a login link followed.
    let page: PageLogin
    private let serving: Task<Void, any Error>

    private init(
        node: Node, service: APIService, access: WebAccess, address: WebAddress, page: PageLogin,
        serving: Task<Void, any Error>
    ) {
        self.node = node
        self.service = service
        self.access = access
        self.address = address
        self.page = page
        self.serving = serving
    }

    /// The owner's token, as scripts send it (`Authorization: Bearer`).
    var token: WebToken { access.token }

    /// `now` is the sessions' and codes' clock; `configure` changes the node's configuration (a file folder, its limits).
    static func start(
        now: @escaping @Sendable () -> Date = { Date() }, configure: (inout NodeConfiguration) -> Void = { _ in }
    ) async throws -> WebTestServer {
        var configuration = NodeConfiguration(identity: try Identity.generate())
        configure(&configuration)
        let node = Node(
            configuration: configuration, store: try MessageStore.inMemory(),
            transport: InMemoryNetwork().makeTransport())
        let service = APIService(node: node, selfName: "me")
        let access = try WebAccess(dataDirectory: nil, nodeKey: node.me.hex, now: now)
        let (bound, continuation) = AsyncStream<WebAddress>.makeStream()
        var logger = Logger(label: "web-test")
        logger.logLevel = .warning
        let server = try WebServer(
            service: service, access: access, address: WebAddress(host: "127.0.0.1", port: 0), logger: logger
        ) {
            continuation.yield($0)
            continuation.finish()
        }
        let serving = Task { try await server.run() }
        var iterator = bound.makeAsyncIterator()
        guard let address = await iterator.next() else { throw WebTestFailure("the web server did not start") }
        let page = try await logIn(access: access, address: address)
        return WebTestServer(
            node: node, service: service, access: access, address: address, page: page, serving: serving)
    }

    /// Follows a fresh login link as a browser does: the cookie from `Set-Cookie`, the proof from the page.
    static func logIn(access: WebAccess, address: WebAddress) async throws -> PageLogin {
        let link = try access.loginLink()
        let response = try await send(.get, String(link.url.dropFirst(address.origin.count)), to: address)
        guard response.status == .ok, let setCookie = response.headers[.setCookie],
            let cookie = setCookie.split(separator: ";").first,
            let start = response.text.range(of: #"name="parley-session-proof" content=""#),
            let end = response.text[start.upperBound...].firstIndex(of: "\"")
        else {
            throw WebTestFailure("the login link did not log in: \(response.status) \(response.text)")
        }
        return PageLogin(cookie: String(cookie), proof: String(response.text[start.upperBound..<end]))
    }

    func logIn() async throws -> PageLogin { try await Self.logIn(access: access, address: address) }

    deinit { serving.cancel() }

    /// The served `Host`, e.g. `127.0.0.1:41234`.
    var host: String { address.description }

    /// Sends one request on a fresh connection and returns the response.
    func send(
        _ method: HTTPRequest.Method, _ path: String, body: String? = nil, host: String? = nil, origin: String? = nil,
        bearer: String? = nil, cookie: String? = nil, headers extra: HTTPFields = [:]
    ) async throws -> TestClient.Response {
        var headers = extra
        if let origin { headers[.origin] = origin }
        if let bearer { headers[.authorization] = "Bearer \(bearer)" }
        if let cookie { headers[.cookie] = cookie }
        if body != nil { headers[.contentType] = "application/json" }
        return try await Self.send(method, path, to: address, authority: host, headers: headers, body: body)
    }

    private static func send(
        _ method: HTTPRequest.Method, _ path: String, to address: WebAddress, authority: String? = nil,
        headers: HTTPFields = [:],
        body: String? = nil, bytes: [UInt8]? = nil
    ) async throws -> TestClient.Response {
        let request = TestClient.Request(
            path, method: method, authority: authority ?? address.description, headers: headers,
            body: bytes.map { ByteBuffer(bytes: $0) } ?? body.map { ByteBuffer(string: $0) })
        // A net for a hung server, not a measure: every in-process suite shares the cooperative pool,
        // and a streamed download waited over the client's default 15 s in a run beside a build.
        return try await TestClient.withClient(
            host: "127.0.0.1", port: address.port, configuration: .init(timeout: .seconds(120))
        ) { client in
            try await client.execute(request)
        }
    }

    /// A request as the logged-in page sends it: its cookie and its proof.
    func asPage(_ method: HTTPRequest.Method, _ path: String, body: String? = nil, login: PageLogin? = nil) async throws
        -> TestClient.Response
    {
        let login = login ?? page
        return try await send(
            method, path, body: body, cookie: login.cookie, headers: [.authorization: "Session \(login.proof)"])
    }

    /// `POST /api/NAME` with the token, as the page sends it.
    func api(_ name: String, _ body: String = "{}") async throws -> TestClient.Response {
        try await send(.post, "/api/\(name)", body: body, bearer: token.hex)
    }
}

extension WebTestServer {
    /// `bytes` as the body, `Content-Type` as given (the page's uploads: application/octet-stream).
    func sendBytes(
        _ method: HTTPRequest.Method, _ path: String, bytes: [UInt8], contentType: String = "application/octet-stream",
        bearer: String? = nil, origin: String? = nil
    ) async throws -> TestClient.Response {
        var headers: HTTPFields = [.contentType: contentType]
        if let bearer { headers[.authorization] = "Bearer \(bearer)" }
        if let origin { headers[.origin] = origin }
        return try await Self.send(method, path, to: address, headers: headers, bytes: bytes)
    }
}

/// A browser's session: `name=id` as its Cookie header carries it, and the proof its page keeps.
struct PageLogin: Sendable {
    let cookie: String
    let proof: String
}

struct WebTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension TestClient.Response {
    var text: String { body.map { String(buffer: $0) } ?? "" }

    /// The JSON body as a dictionary (an error body, or an object result).
    var object: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:] }

    /// `error.kind` of a JSON error body.
    var errorKind: String? { (object["error"] as? [String: Any])?["kind"] as? String }
}
