import Foundation
import HTTPTypes
import Synchronization

/// The front door: decides, before any handler runs, whether a request may go on. Pure over the
/// request head, so the HTTP routes and the WebSocket upgrade apply exactly the same rules.
///
/// 1. `Host` must name the served address and `Origin`, when sent, be a page of it; otherwise 403.
///    This defeats DNS rebinding: a hostile page whose name now resolves to this machine still
///    sends its own name.
/// 2. `/api` requests need the token, as the session cookie or as `Authorization: Bearer`; otherwise 401.
final class RequestGuard: Sendable {
    /// The session cookie `GET /login` sets.
    static let cookieName = "parley_session"

    let token: WebToken
    /// Known once the server listens (port 0 becomes a real port); nil only before that.
    private let served = Mutex<WebAddress?>(nil)

    init(token: WebToken, address: WebAddress? = nil) {
        self.token = token
        served.withLock { $0 = address }
    }

    var address: WebAddress? { served.withLock { $0 } }

    func serve(_ address: WebAddress) { served.withLock { $0 = address } }

    /// nil when the request may go on, else why not.
    func refusal(for head: HTTPRequest) -> WebRefusal? {
        guard let address else { return WebRefusal(status: .serviceUnavailable, kind: .unavailable, message: "the web app is starting") }
        guard address.accepts(authority: head.authority) else {
            return WebRefusal(status: .forbidden, kind: .forbidden, message: "this server answers only to Host \(address)")
        }
        guard address.accepts(origin: head.headerFields[.origin]) else {
            return WebRefusal(status: .forbidden, kind: .forbidden, message: "requests from other origins are refused")
        }
        if Self.needsToken(path: head.path ?? "/"), !isAuthenticated(head) {
            return WebRefusal(
                status: .unauthorized, kind: .unauthorized,
                message: "log in first: open the URL 'parley web' prints, or send Authorization: Bearer TOKEN")
        }
        return nil
    }

    /// The API and its WebSocket; the page's own files and the login are public (they hold no data).
    static func needsToken(path: String) -> Bool {
        let path = path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path
        return path == "/api" || path.hasPrefix("/api/")
    }

    func isAuthenticated(_ head: HTTPRequest) -> Bool {
        if let authorization = head.headerFields[.authorization], authorization.hasPrefix("Bearer "),
           token.matches(String(authorization.dropFirst("Bearer ".count)).trimmingCharacters(in: .whitespaces)) {
            return true
        }
        // Several Cookie fields, or one with several cookies: any parley_session that matches.
        for field in head.headerFields[values: .cookie] {
            for pair in field.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if parts.count == 2, parts[0] == Self.cookieName, token.matches(parts[1]) { return true }
            }
        }
        return false
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
    /// A body over the limit (1 MiB).
    case tooLarge
    /// `GET /api/ws` without a WebSocket upgrade.
    case upgradeRequired
}
