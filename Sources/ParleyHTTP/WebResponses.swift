import Foundation
import HTTPTypes
import Hummingbird
import ParleyAPI

/// The responses every route builds: JSON bodies, JSON errors, and the headers every response carries.
enum WebResponses {
    /// No inline script or style, nothing from elsewhere, no framing: a message that slipped past
    /// the page's escaping still could not run a script or send anything anywhere. Images: the page's
    /// own, thumbnails (data:) and pictures it fetched with its session (blob:, see js/files.js).
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; "
        + "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    // HTTPTypes has no Referrer-Policy name; the init fails only on characters a header name cannot hold.
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!

    /// Added to every response, errors and the WebSocket upgrade included.
    static var securityHeaders: HTTPFields {
        var fields = HTTPFields()
        fields[.contentSecurityPolicy] = contentSecurityPolicy
        fields[.xContentTypeOptions] = "nosniff"
        fields[referrerPolicy] = "no-referrer"
        return fields
    }

    static func json(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        // Answers hold chat content: never keep them in a cache.
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// `{"error":{"kind":"…","message":"…"}}` with `status`.
    static func error(status: HTTPResponse.Status, kind: String, message: String) -> Response {
        json(errorBody(kind: kind, message: message), status: status)
    }

    static func error(_ refusal: WebRefusal) -> Response {
        error(status: refusal.status, kind: refusal.kind.rawValue, message: refusal.message)
    }

    /// An API failure: its kind's status (`APIFailure.Kind.httpStatus`).
    static func error(_ failure: APIFailure) -> Response {
        error(status: status(of: failure.kind), kind: failure.kind.rawValue, message: failure.message)
    }

    static func status(of kind: APIFailure.Kind) -> HTTPResponse.Status {
        HTTPResponse.Status(code: kind.httpStatus)
    }

    static func errorBody(kind: String, message: String) -> String {
        (try? APIJSON.encode(ErrorBody(error: .init(kind: kind, message: message))))
            ?? #"{"error":{"kind":"internal","message":"the error could not be encoded"}}"#
    }

    /// What a thrown error becomes: Hummingbird's own (no route, body too large, …) keep their status;
    /// anything else is a failure of the node, reported without its details.
    static func error(for thrown: any Error) -> Response {
        switch thrown {
        case let refusal as WebRefusal: return error(refusal)
        case let failure as APIFailure: return error(failure)
        case let http as any HTTPResponseError:
            let status = http.status
            return error(status: status, kind: kind(of: status).rawValue, message: message(for: status))
        default:
            return error(
                status: .internalServerError, kind: WebErrorKind.internal.rawValue,
                message: "the server failed to answer")
        }
    }

    static func kind(of status: HTTPResponse.Status) -> WebErrorKind {
        switch status.code {
        case 401: .unauthorized
        case 403: .forbidden
        case 404: .notFound
        case 405: .methodNotAllowed
        case 409: .conflict
        case 413: .tooLarge
        case 426: .upgradeRequired
        case 400..<500: .invalid
        case 503: .unavailable
        default: .internal
        }
    }

    static func message(for status: HTTPResponse.Status) -> String {
        switch status.code {
        case 404: "no such route"
        case 413: "the body is over the limit of 1 MiB"
        default: status.reasonPhrase.isEmpty ? "request failed" : status.reasonPhrase
        }
    }

    private struct ErrorBody: Encodable {
        struct Detail: Encodable {
            let kind: String
            let message: String
        }

        let error: Detail
    }
}
