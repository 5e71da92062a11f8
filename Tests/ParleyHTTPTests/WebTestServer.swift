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
/// one test. Requests go through a raw HTTP client, so a test can send any Host or Origin.
final class WebTestServer: Sendable {
    let node: Node
    let service: APIService
    let token: WebToken
    let address: WebAddress
    private let serving: Task<Void, any Error>

    private init(node: Node, service: APIService, token: WebToken, address: WebAddress, serving: Task<Void, any Error>) {
        self.node = node
        self.service = service
        self.token = token
        self.address = address
        self.serving = serving
    }

    static func start() async throws -> WebTestServer {
        let node = Node(
            configuration: NodeConfiguration(identity: try Identity.generate()), store: try MessageStore.inMemory(),
            transport: InMemoryNetwork().makeTransport())
        let service = APIService(node: node, selfName: "me")
        let token = WebToken.generate()
        let (bound, continuation) = AsyncStream<WebAddress>.makeStream()
        var logger = Logger(label: "web-test")
        logger.logLevel = .warning
        let server = try WebServer(service: service, token: token, address: WebAddress(host: "127.0.0.1", port: 0), logger: logger) {
            continuation.yield($0)
            continuation.finish()
        }
        let serving = Task { try await server.run() }
        var iterator = bound.makeAsyncIterator()
        guard let address = await iterator.next() else { throw WebTestFailure("the web server did not start") }
        return WebTestServer(node: node, service: service, token: token, address: address, serving: serving)
    }

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
        let request = TestClient.Request(
            path, method: method, authority: host ?? self.host, headers: headers, body: body.map { ByteBuffer(string: $0) })
        return try await TestClient.withClient(host: "127.0.0.1", port: address.port) { client in
            try await client.execute(request)
        }
    }

    /// `POST /api/NAME` with the token, as the page sends it.
    func api(_ name: String, _ body: String = "{}") async throws -> TestClient.Response {
        try await send(.post, "/api/\(name)", body: body, bearer: token.hex)
    }
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
