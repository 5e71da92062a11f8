/// Every failure of the HTTP front end's set-up: the token file, the address, the address file.
/// Requests never throw these; they are answered with a JSON error instead.
public struct WebError: Error, Hashable, Sendable, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }

    static func tokenFile(_ path: String, _ reason: String) -> WebError { WebError("web token \(path): \(reason)") }
    static func address(_ text: String, _ reason: String) -> WebError { WebError("web address '\(text)': \(reason)") }
}
