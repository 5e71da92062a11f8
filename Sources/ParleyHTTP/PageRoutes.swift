import HTTPTypes
import Hummingbird
import Logging
import ParleyWebApp

/// The page's files, the login that turns a one-time code into a session, and the logout.
struct PageRoutes: Sendable {
    /// The browser keeps the cookie until the node says the session ended: the node is the judge
    /// (`WebAccess.sessionLifetime`), so the cookie's own limit is the longest browsers keep (400 days).
    static let cookieMaxAge = 400 * 24 * 3600

    let assets: WebAssetCatalog
    let gate: RequestGuard
    let logger: Logger

    func add<Context: RequestContext>(to router: Router<Context>) {
        for path in ["/"] + assets.paths {
            guard let asset = assets.asset(at: path) else { continue }
            router.get(RouterPath(path)) { _, _ in Self.response(for: asset) }
        }
        router.get("/login") { request, _ in login(request) }
        router.post("/logout") { request, _ in logout(request) }
    }

    static func response(for asset: WebAsset) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = asset.contentType
        // Always revalidated, so a node upgraded in place serves its new page at once.
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: asset.bytes)))
    }

    /// `GET /login?code=…`: a live code opens a session, its id in this node's HttpOnly cookie and its
    /// proof handed to the page's storage (`LoginPages.loggedIn`); any other gets a page saying to
    /// run `parley web` again. A session this browser had before is not ended here (the navigation
    /// carries its cookie, not its proof, and the node keeps only their hash): it expires unused.
    func login(_ request: Request) -> Response {
        let session: WebSessionCredentials?
        do {
            session = try request.uri.queryParameters.get("code").flatMap { code throws(WebError) in
                try gate.access.redeem(code: code)
            }
        } catch {
            logger.error("the web sessions file could not be written", metadata: ["error": "\(error)"])
            return LoginPages.html(
                LoginPages.page(head: "", body: "<p>The node could not keep the session: see its log.</p>"),
                status: .internalServerError)
        }
        guard let session else { return LoginPages.html(LoginPages.refused, status: .forbidden) }
        var headers = HTTPFields()
        headers[.setCookie] = cookie(value: session.id, maxAge: Self.cookieMaxAge)
        let index = assets.asset(at: "/").map { String(decoding: $0.bytes, as: UTF8.self) } ?? ""
        return LoginPages.html(LoginPages.loggedIn(proof: session.proof, index: index), status: .ok, headers: headers)
    }

    /// `POST /logout`: ends the session the request names (cookie and proof), and clears the cookie
    /// whatever it named. 204: the page shows its own "logged out".
    func logout(_ request: Request) -> Response {
        if let session = gate.sessionCredentials(request.head) {
            do { try gate.access.end(session) } catch {
                logger.error("the web sessions file could not be written", metadata: ["error": "\(error)"])
            }
        }
        var headers = HTTPFields()
        headers[.setCookie] = cookie(value: "", maxAge: 0)
        headers[.cacheControl] = "no-store"
        return Response(status: .noContent, headers: headers)
    }

    /// HttpOnly: no script reads it. SameSite=Strict: no other site's page sends it. Secure over TLS.
    func cookie(value: String, maxAge: Int) -> String {
        let secure = gate.address?.scheme.isTLS == true ? "; Secure" : ""
        return "\(gate.access.cookieName)=\(value); HttpOnly; SameSite=Strict; Path=/; Max-Age=\(maxAge)\(secure)"
    }
}
