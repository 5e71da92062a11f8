/// How the web app is served: plain HTTP, or HTTPS with the data directory's self-signed certificate.
public enum WebScheme: String, Sendable, Hashable, CustomStringConvertible {
    case http, https

    public var description: String { rawValue }

    /// Whether cookies and links must say so (`Secure`, `https://`).
    public var isTLS: Bool { self == .https }

    /// The rule of `parley node --web`: loopback is plain HTTP unless `forceTLS` (`--web-tls`); any
    /// other address carries the login and every decrypted message across the network, so it is
    /// HTTPS unless `allowPlainHTTP` (`--insecure-http`) says plainly that it should not be.
    public static func serving(_ address: WebAddress, forceTLS: Bool, allowPlainHTTP: Bool) throws(WebError)
        -> WebScheme
    {
        if forceTLS, allowPlainHTTP {
            throw WebError("--web-tls and --insecure-http contradict each other: give one of them")
        }
        if forceTLS { return .https }
        return address.isLoopback || allowPlainHTTP ? .http : .https
    }
}
