import Foundation

/// Where the web app is served: a host (a name, an IPv4 address or a bracketed IPv6 address), a port,
/// and whether over TLS.
///
/// It is also what requests must name. A browser sends the host:port it was pointed at as `Host`
/// (and as `Origin` for scripts), so a page from anywhere else that reaches this port through DNS
/// rebinding still names its own host, and is refused.
public struct WebAddress: Sendable, Hashable, CustomStringConvertible {
    public let host: String
    public let port: Int
    /// `.https` when the server speaks TLS: origins are checked against it, and cookies set `Secure`.
    public let scheme: WebScheme

    public init(host: String, port: Int, scheme: WebScheme = .http) {
        self.host = host
        self.port = port
        self.scheme = scheme
    }

    /// Parses `HOST:PORT` (`[::1]:8080` for IPv6), as plain HTTP until the scheme is chosen. Port 0
    /// asks the system for a free port. A wildcard address (0.0.0.0, ::) is refused: requests are
    /// checked against the one address served.
    public init(parsing text: String) throws(WebError) {
        guard let colon = text.lastIndex(of: ":") else {
            throw .address(text, "expected HOST:PORT, e.g. 127.0.0.1:8080")
        }
        var host = String(text[..<colon])
        guard let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port) else {
            throw .address(text, "the port must be a number from 0 to 65535")
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, host.allSatisfy({ $0.isLetter || $0.isNumber || ".-:".contains($0) }),
            host.allSatisfy(\.isASCII)
        else {
            throw .address(text, "the host must be a name or an IP address")
        }
        guard !["0.0.0.0", "::", "0:0:0:0:0:0:0:0"].contains(host) else {
            throw .address(
                text,
                "bind one address (e.g. 127.0.0.1 or this machine's LAN address), not a wildcard: the Host check needs it"
            )
        }
        self.init(host: host.lowercased(), port: port)
    }

    /// `host:port`, with IPv6 hosts in brackets: the form a browser sends as `Host`.
    public var description: String { "\(host.contains(":") ? "[\(host)]" : host):\(port)" }

    /// `scheme://host:port`: what a browser sends as `Origin`, and the start of every link to the app.
    public var origin: String { "\(scheme)://\(description)" }

    /// Only this machine can connect.
    public var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// The `Host` values a request may carry: this address, and on loopback `localhost` too, the
    /// name a browser is as likely to be given (a rebinding page sends its own domain name, never localhost).
    /// On the scheme's own port (80, 443) a browser leaves the port out, so the bare host counts too.
    public var acceptedAuthorities: Set<String> {
        var names: Set<String> = [description]
        if isLoopback { names.insert("localhost:\(port)") }
        if host == "localhost" { names.formUnion(["127.0.0.1:\(port)", "[::1]:\(port)"]) }
        if port == (scheme.isTLS ? 443 : 80) {
            names.formUnion(names.map { String($0[..<($0.lastIndex(of: ":") ?? $0.endIndex)]) })
        }
        return names
    }

    /// Whether a request's `Host` names this address (case-insensitively, as host names are).
    public func accepts(authority: String?) -> Bool {
        guard let authority else { return false }
        return acceptedAuthorities.contains(authority.lowercased())
    }

    /// Whether a request's `Origin` is a page of this address; a request without one (a form
    /// navigation, curl) passes, as browsers send one with every script request that matters.
    public func accepts(origin: String?) -> Bool {
        guard let origin else { return true }
        let lowered = origin.lowercased(), prefix = "\(scheme)://"
        return lowered.hasPrefix(prefix) && acceptedAuthorities.contains(String(lowered.dropFirst(prefix.count)))
    }
}
