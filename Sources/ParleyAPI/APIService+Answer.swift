public import Foundation

/// One answered request, for front ends that do not speak the line envelope (the HTTP adapter): the
/// result's JSON on success, the failure with its kind otherwise.
public enum APIAnswer: Sendable, Hashable {
    /// The result exactly as the control socket's `result` carries it (compact JSON, sorted keys).
    case success(json: String)
    case failure(APIFailure)
}

extension APIService {
    /// Handles one request like `respond(to:)`, through the same dispatcher, and encodes its typed
    /// result on its own: the bytes the envelope's `result` holds, as both use one encoder.
    public func answer(to request: APIRequest) async -> APIAnswer {
        let result: APIResult
        do { result = try await handle(request) } catch { return .failure(APIFailure(error)) }
        do { return .success(json: try APIJSON.encode(result.value)) } catch {
            return .failure(APIFailure(kind: .internal, message: "response could not be encoded"))
        }
    }
}

extension APIRequest {
    /// Decodes a request given apart as its case name and the JSON object of its labelled values
    /// (`{}` for none; an empty body counts as `{}`) — the key and the value of the control socket's
    /// one-key object.
    ///
    /// Throws `APIRequestDecodingError.unknownRequest` when no request has that name, and
    /// `.malformed` when the name is known but the body does not fit it, so an HTTP front end can
    /// answer 404 and 400 apart.
    public static func decode(name: String, body: Data) throws(APIRequestDecodingError) -> APIRequest {
        // Case names are Swift identifiers; anything else cannot name a request (and is never
        // spliced into JSON below).
        guard let first = name.unicodeScalars.first, CharacterSet.letters.contains(first),
            name.unicodeScalars.allSatisfy({ $0.isASCII && CharacterSet.alphanumerics.contains($0) })
        else {
            throw .unknownRequest(name)
        }
        let body = body.isEmpty ? Data("{}".utf8) : body
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: body) } catch {
            throw .malformed("the body is not JSON: \(error.localizedDescription)")
        }
        guard object is [String: Any] else {
            throw .malformed("the body must be a JSON object ({} for a request without values)")
        }
        // The body is one valid JSON object, so wrapping its bytes cannot change its meaning.
        var wrapped = Data("{\"\(name)\":".utf8)
        wrapped.append(body)
        wrapped.append(contentsOf: Array("}".utf8))
        do { return try JSONDecoder().decode(APIRequest.self, from: wrapped) } catch let error as DecodingError {
            // Synthesized enum decoding finds no known key at the top level (an empty coding path)
            // only when the name is none of its cases; a known case with bad values fails below it.
            if Self.codingPath(of: error).isEmpty { throw .unknownRequest(name) }
            throw .malformed(Self.describe(error))
        } catch {
            throw .malformed(error.localizedDescription)
        }
    }

    /// Whether the request is answered as a stream (`APIService.stream`) rather than once.
    public var isStreaming: Bool {
        switch self {
        case .watch, .watchMessages: true
        default: false
        }
    }

    /// The names of the streaming requests, so a front end can send them elsewhere before decoding.
    public static let streamingNames: Set<String> = ["watch", "watchMessages"]

    private static func codingPath(of error: DecodingError) -> [any CodingKey] {
        switch error {
        case let .typeMismatch(_, context), let .valueNotFound(_, context), let .keyNotFound(_, context),
            let .dataCorrupted(context):
            context.codingPath
        @unknown default: []
        }
    }

    /// One line naming what does not fit, for the control socket and the HTTP front end alike:
    /// `missing field "chat" in send`, `field "refs[0]" in send: expected a string`. `line`, the
    /// whole request line, tells an unknown request name from a line that is not one request.
    static func describe(_ error: DecodingError, line: String? = nil) -> String {
        let (path, detail): ([any CodingKey], String) =
            switch error {
            case let .keyNotFound(key, context): (context.codingPath + [key], "missing")
            case let .typeMismatch(type, context): (context.codingPath, "expected \(jsonKind(of: type))")
            case let .valueNotFound(type, context): (context.codingPath, "expected \(jsonKind(of: type)), found null")
            case let .dataCorrupted(context): (context.codingPath, context.debugDescription)
            @unknown default: ([], "the request does not fit")
            }
        guard let request = path.first?.stringValue, path.first?.intValue == nil else {
            return topLevel(error, line: line)
        }
        let field = path.dropFirst().reduce(into: "") { text, key in
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        if field.isEmpty { return "the value of \(request) must be a JSON object" }
        if case .keyNotFound = error { return #"missing field "\#(field)" in \#(request)"# }
        return #"field "\#(field)" in \#(request): \#(detail)"#
    }

    /// A line that is no request at all: not JSON, or not an object with one request's name as its one key.
    private static func topLevel(_ error: DecodingError, line: String?) -> String {
        let object = line.flatMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8), options: [.fragmentsAllowed])
        }
        guard let object else {
            if case .dataCorrupted = error { return "the line is not JSON" }
            return "a request is a JSON object with one key, the request's name"
        }
        if let keys = (object as? [String: Any]).map({ Array($0.keys) }), keys.count == 1 {
            return #"no request named "\#(keys[0])""#
        }
        return "a request is a JSON object with one key, the request's name"
    }

    /// How a JSON value of the type the decoder wanted is called.
    private static func jsonKind(of type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Bool.Type: return "true or false"
        case is Int.Type, is Int64.Type, is Int32.Type, is UInt64.Type, is UInt32.Type: return "an integer"
        case is Double.Type, is Float.Type: return "a number"
        default:
            let name = String(describing: type)
            if name.hasPrefix("Array") { return "an array" }
            if name.hasPrefix("Dictionary") || name.contains("KeyedDecodingContainer") { return "a JSON object" }
            return name
        }
    }
}

/// Why a request given as a name and a body could not be decoded.
public enum APIRequestDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No request has this name.
    case unknownRequest(String)
    /// The body is not a JSON object, or does not fit the request's values.
    case malformed(String)

    public var description: String {
        switch self {
        case let .unknownRequest(name): "no request named '\(name)'"
        case let .malformed(reason): "bad request: \(reason)"
        }
    }
}
