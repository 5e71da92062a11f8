import Foundation
import HTTPTypes
import Synchronization

/// The front door: decides, before any handler runs, whether a request may go on. It reads the
/// request head alone, so the HTTP routes and the WebSocket upgrade apply exactly the same rules.
///
/// 1. `Host` must name the served address and `Origin`, when sent, be a page of it; otherwise 403.
///    This defeats DNS rebinding: a hostile page whose name now resolves to this machine still
///    sends its own name.
/// 2. `/api` requests need the token as `Authorization: Bearer` (scripts), or a live session: its
///    cookie and its proof (`WebSessionCredentials`); otherwise 401.
final class RequestGuard: Sendable {
    /// The page's WebSocket subprotocol; the server names it in its answer, as browsers require.
    static let webSocketProtocol = "parley"
    /// A WebSocket cannot carry `Authorization`: the page offers its proof as a second subprotocol.
    static let proofProtocolPrefix = "parley-session."

    let access: WebAccess
    /// Known once the server listens (port 0 becomes a real port); nil only before that.
    private let served = Mutex<WebAddress?>(nil)

    init(access: WebAccess, address: WebAddress? = nil) {
        self.access = access
        served.withLock { $0 = address }
    }

    var address: WebAddress? { served.withLock { $0 } }

    func serve(_ address: WebAddress) {
        served.withLock { $0 = address }
        access.serve(address)
    }

    /// nil when the request may go on, else why not.
    func refusal(for head: HTTPRequest) -> WebRefusal? {
        guard let address else {
            return WebRefusal(status: .serviceUnavailable, kind: .unavailable, message: "the web app is starting")
        }
        guard address.accepts(authority: head.authority) else {
            return WebRefusal(
                status: .forbidden, kind: .forbidden, message: "this server answers only to Host \(address)")
        }
        guard address.accepts(origin: head.headerFields[.origin]) else {
            return WebRefusal(status: .forbidden, kind: .forbidden, message: "requests from other origins are refused")
        }
        if Self.needsToken(path: head.path ?? "/"), !isAuthenticated(head) {
            return WebRefusal(
                status: .unauthorized, kind: .unauthorized,
                message: "log in first: open the link 'parley web' prints, or send Authorization: Bearer TOKEN")
        }
        return nil
    }

    /// The API and its WebSocket; the page's own files, the login and the logout are public (they hold no data).
    static func needsToken(path: String) -> Bool {
        let path = path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path
        return path == "/api" || path.hasPrefix("/api/")
    }

    func isAuthenticated(_ head: HTTPRequest) -> Bool {
        hasToken(head) || sessionCredentials(head).map(access.isLive) ?? false
    }

    /// The session an authenticated request acts under; nil for a script with the token.
    func session(of head: HTTPRequest) -> WebSessionCredentials? {
        hasToken(head) ? nil : sessionCredentials(head)
    }

    private func hasToken(_ head: HTTPRequest) -> Bool {
        bearer(of: head).map(access.token.matches) ?? false
    }

    /// What `Authorization: Bearer` offers as the token, right or wrong.
    func bearer(of head: HTTPRequest) -> String? {
        Self.authorization(head, scheme: "Bearer")
    }

    /// The session a browser's request names: this node's cookie, and the proof in `Authorization:
    /// Session PROOF` or, on a WebSocket handshake, in the subprotocol list. nil when either is missing.
    func sessionCredentials(_ head: HTTPRequest) -> WebSessionCredentials? {
        guard let id = cookie(head), let proof = Self.authorization(head, scheme: "Session") ?? Self.offeredProof(head)
        else { return nil }
        return WebSessionCredentials(id: id, proof: proof)
    }

    /// This node's session cookie; several Cookie fields, or one with several cookies, are searched.
    func cookie(_ head: HTTPRequest) -> String? {
        for field in head.headerFields[values: .cookie] {
            for pair in field.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if parts.count == 2, parts[0] == access.cookieName, WebSessionCredentials.isWellFormed(parts[1]) {
                    return parts[1]
                }
            }
        }
        return nil
    }

    /// Whether a WebSocket handshake offers the page's subprotocol (the answer must then name it).
    static func offersPageProtocol(_ head: HTTPRequest) -> Bool {
        offeredProtocols(head).contains(webSocketProtocol)
    }

    private static func offeredProof(_ head: HTTPRequest) -> String? {
        offeredProtocols(head).first { $0.hasPrefix(proofProtocolPrefix) }.map {
            String($0.dropFirst(proofProtocolPrefix.count))
        }
    }

    private static func offeredProtocols(_ head: HTTPRequest) -> [String] {
        head.headerFields[values: .secWebSocketProtocol].flatMap { $0.split(separator: ",") }.map {
            $0.trimmingCharacters(in: .whitespaces)
        }
    }

    private static func authorization(_ head: HTTPRequest, scheme: String) -> String? {
        guard let value = head.headerFields[.authorization], value.hasPrefix("\(scheme) ") else { return nil }
        return String(value.dropFirst(scheme.count + 1)).trimmingCharacters(in: .whitespaces)
    }
}

/// A refused request: its status and the JSON error it is answered with.
struct WebRefusal: Error, Hashable, Sendable {
    let status: HTTPResponse.Status
    let kind: WebErrorKind
    let message: String
}

/// The `kind` of a JSON error body: the API's failure kinds, and those only HTTP has.
enum WebErrorKind: String, Hashable, Sendable {
    case invalid, notFound, forbidden, conflict, unavailable, `internal`
    /// No token, or a wrong one.
    case unauthorized
    /// A route that exists, with another method.
    case methodNotAllowed
    /// A body over the limit: 1 MiB for a request, the node's per-file cap for an upload.
    case tooLarge
    /// `GET /api/ws` without a WebSocket upgrade.
    case upgradeRequired
}
