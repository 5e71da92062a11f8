import HTTPTypes
import Hummingbird
import Logging

/// Wraps every route (and the router's "no such route"): refuses what `RequestGuard` refuses, turns
/// every thrown error into a JSON error, and adds the security headers to whatever goes out. So no
/// input reaches the default 500 or an HTML error page.
struct FrontDoorMiddleware<Context: RequestContext>: RouterMiddleware {
    let gate: RequestGuard
    let methods: RouteMethods
    /// The node's own logger (Hummingbird's is quieter): method and path only, never a query or a body.
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var response: Response
        if let refusal = gate.refusal(for: request.head) {
            // Method and path only: a query may hold the token (/login), a body chat content.
            logger.debug(
                "refused",
                metadata: [
                    "method": "\(request.method)", "path": "\(request.uri.path)", "status": "\(refusal.status.code)",
                ])
            response = WebResponses.error(refusal)
        } else {
            do {
                response = try await next(request, context)
            } catch let error as HTTPError where error.status == .notFound {
                response = notFound(request)
            } catch {
                response = WebResponses.error(for: error)
                if response.status.code >= 500 {
                    logger.warning(
                        "request failed", metadata: ["path": "\(request.uri.path)", "error": "\(type(of: error))"])
                }
            }
        }
        // A route that set its own (a served file's stricter policy) keeps it: two policies would both apply.
        for field in WebResponses.securityHeaders where response.headers[field.name] == nil {
            response.headers.append(field)
        }
        return response
    }

    /// No route: 405 with `Allow` when the path exists with another method, else 404.
    private func notFound(_ request: Request) -> Response {
        guard let allowed = methods.allowed(for: request.uri.path), allowed != request.method else {
            return WebResponses.error(status: .notFound, kind: WebErrorKind.notFound.rawValue, message: "no such route")
        }
        var response = WebResponses.error(
            status: .methodNotAllowed, kind: WebErrorKind.methodNotAllowed.rawValue,
            message: "\(request.uri.path) takes \(allowed.rawValue) only")
        response.headers[.allow] = allowed.rawValue
        return response
    }
}
