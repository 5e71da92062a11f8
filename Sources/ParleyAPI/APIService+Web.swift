/// What only the node's owner may do to its web front end (`parley node --web`): asked over the
/// control socket (mode 0600, so only the owner reaches it) by `parley web`. The HTTP API refuses
/// these requests (`APIRequest.ownerOnlyNames`): a browser session must not mint logins or revoke.
public protocol WebFrontEndOwner: Sendable {
    /// A link that logs one browser in, once, within `WebLoginView.expiresInSeconds`.
    func loginLink() throws -> WebLoginView
    /// Ends every session and replaces the token, at once.
    func revokeAll() throws -> WebRevokeView
}

/// `webLogin`'s result: the one-time login link.
public struct WebLoginView: Codable, Sendable, Hashable {
    public let url: String
    public let expiresInSeconds: Int

    public init(url: String, expiresInSeconds: Int) {
        self.url = url
        self.expiresInSeconds = expiresInSeconds
    }
}

/// `webRevoke`'s result: how many sessions ended (the token is new either way).
public struct WebRevokeView: Codable, Sendable, Hashable {
    public let sessionsEnded: Int

    public init(sessionsEnded: Int) {
        self.sessionsEnded = sessionsEnded
    }
}

extension APIRequest {
    /// The requests for the node's owner only: never answered over HTTP.
    public static let ownerOnlyNames: Set<String> = ["webLogin", "webRevoke"]
    /// The requests naming a path on the node's machine: never answered over HTTP, where a page could
    /// otherwise read or write any file the node's user can. The page uploads and downloads instead.
    public static let machinePathNames: Set<String> = ["fileSend", "fileSave"]
}

extension APIService {
    func webFrontEnd() throws -> any WebFrontEndOwner {
        guard let web else {
            throw APIFailure(
                kind: .unavailable,
                message: "this node does not serve the web app: start it with 'parley node … --web 127.0.0.1:8080'")
        }
        return web
    }

    /// Runs `body` on the web front end; its own failures (a token file it cannot write) are the node's.
    func answerWeb<View: Codable & Sendable>(_ body: (any WebFrontEndOwner) throws -> View) throws -> APIResult {
        let web = try webFrontEnd()
        do { return Self.ok(try body(web)) } catch {
            throw APIFailure(kind: .internal, message: "the web app: \(error)")
        }
    }
}
