import HTTPTypes
import Hummingbird
import ParleyWebApp

/// The page's files and the login that turns the token into a session cookie.
struct PageRoutes: Sendable {
    let assets: WebAssetCatalog
    let gate: RequestGuard

    func add<Context: RequestContext>(to router: Router<Context>) {
        for path in ["/"] + assets.paths {
            guard let asset = assets.asset(at: path) else { continue }
            router.get(RouterPath(path)) { _, _ in Self.response(for: asset) }
        }
        router.get("/login") { request, _ in login(token: request.uri.queryParameters.get("token")) }
    }

    static func response(for asset: WebAsset) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = asset.contentType
        // Always revalidated, so a node upgraded in place serves its new page at once.
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: asset.bytes)))
    }

    /// `GET /login?token=…`: the right token gets the session cookie and goes to the page; the page
    /// never sees the token again (HttpOnly), and no other site's request carries it (SameSite=Strict).
    func login(token candidate: String?) -> Response {
        guard let candidate, gate.token.matches(candidate) else {
            return WebResponses.error(status: .forbidden, kind: WebErrorKind.forbidden.rawValue,
                                      message: "wrong or missing token: run 'parley web' for the login URL")
        }
        var headers = HTTPFields()
        headers[.setCookie] = "\(RequestGuard.cookieName)=\(gate.token.hex); HttpOnly; SameSite=Strict; Path=/"
        headers[.location] = "/"
        headers[.cacheControl] = "no-store"
        return Response(status: .seeOther, headers: headers)
    }
}
