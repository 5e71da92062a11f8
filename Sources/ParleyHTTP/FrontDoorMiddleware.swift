import HTTPTypes
import Hummingbird
import Logging

/// Wraps every route (and the router's "no such route"): refuses what `RequestGuard` refuses, turns
/// every thrown error into a JSON error, and adds the security headers to whatever goes out. So no
/// input reaches the default 500 or an HTML error page.
struct FrontDoorMiddleware<Context: RequestContext>: RouterMiddleware {
    let gate: RequestGuard

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        if let refusal = gate.refusal(for: request.head) {
            // Method and path only: a query may hold the token, a body chat content.
            context.logger.debug("refused", metadata: ["method": "\(request.method)", "path": "\(request.uri.path)", "status": "\(refusal.status.code)"])
            response = WebResponses.error(refusal)
        } else {
            do {
                response = try await next(request, context)
            } catch {
                response = WebResponses.error(for: error)
                if response.status.code >= 500 {
                    context.logger.warning("request failed", metadata: ["path": "\(request.uri.path)", "error": "\(type(of: error))"])
                }
            }
        }
        response.headers.append(contentsOf: WebResponses.securityHeaders)
        return response
    }
}
