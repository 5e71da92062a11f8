import Foundation
import HTTPTypes
import Hummingbird
import ParleyAPI

/// `POST /api/{request}`: one `APIRequest` per call, answered by the same dispatcher as the control
/// socket. The body is the request's labelled values as a JSON object, the answer its bare result.
struct APIRoutes: Sendable {
    /// The control socket's limit for one request line.
    static let maxBodyBytes = 1 << 20

    let service: APIService

    func add<Context: RequestContext>(to router: Router<Context>) {
        // Without an upgrade, the WebSocket route says what it wants (the upgrade itself never gets here).
        router.get("/api/ws") { _, _ in
            WebResponses.error(
                status: HTTPResponse.Status(code: 426), kind: WebErrorKind.upgradeRequired.rawValue,
                message: "/api/ws is a WebSocket: connect with an upgrade")
        }
        router.post("/api/:request") { request, context in
            try await respond(to: request, name: context.parameters.get("request") ?? "")
        }
        // The router matches a path's last part against a fixed name before a parameter and does not
        // fall back: the downloads' /api/files/… would hide the request `files` without its own route.
        router.post("/api/files") { request, _ in try await respond(to: request, name: "files") }
    }

    func respond(to request: Request, name: String) async throws -> Response {
        if APIRequest.ownerOnlyNames.contains(name) {
            return WebResponses.error(
                status: .forbidden, kind: WebErrorKind.forbidden.rawValue,
                message: "'\(name)' is for the node's owner only: run 'parley web' on the node's machine")
        }
        if APIRequest.machinePathNames.contains(name) {
            return WebResponses.error(
                status: .forbidden, kind: WebErrorKind.forbidden.rawValue,
                message:
                    "'\(name)' names a path on the node's machine: upload with POST /api/upload, download with GET /api/files/CHAT/FILE"
            )
        }
        if APIRequest.streamingNames.contains(name) {
            return WebResponses.error(
                status: .notFound, kind: WebErrorKind.notFound.rawValue,
                message: "'\(name)' is a stream: send {\"watch\":{\"chat\":…}} on the WebSocket /api/ws")
        }
        // Throws Hummingbird's "too large" (413) past the limit, before reading the rest.
        let buffer = try await request.body.collect(upTo: Self.maxBodyBytes)
        let decoded: APIRequest
        do {
            decoded = try APIRequest.decode(name: name, body: Data(buffer.readableBytesView))
        } catch let .unknownRequest(unknown) {
            return WebResponses.error(
                status: .notFound, kind: WebErrorKind.notFound.rawValue, message: "no request named '\(unknown)'")
        } catch {
            return WebResponses.error(
                status: .badRequest, kind: WebErrorKind.invalid.rawValue, message: error.description)
        }
        switch await service.answer(to: decoded) {
        case let .success(json): return WebResponses.json(json)
        case let .failure(failure): return WebResponses.error(failure)
        }
    }
}
