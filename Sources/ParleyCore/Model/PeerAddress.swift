import NIOCore

/// A UDP endpoint as "HOST:PORT" (IPv6 as "[HOST]:PORT").
public struct PeerAddress: Hashable, Sendable, CustomStringConvertible, Codable {
    public let host: String
    public let port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    public init(parsing text: String) throws(CoreError) {
        let host: Substring
        let port: Substring
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { throw .invalid("address \"\(text)\" must be [HOST]:PORT") }
            port = rest.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":") else { throw .invalid("address \"\(text)\" must be HOST:PORT") }
            host = text[..<colon]
            port = text[text.index(after: colon)...]
        }
        guard !host.isEmpty else { throw .invalid("address \"\(text)\" has no host") }
        guard let number = UInt16(port) else { throw .invalid("address \"\(text)\" has no valid port (0–65535)") }
        self.init(host: String(host), port: number)
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Whether the host is a literal IPv4 or IPv6 address (as `inet_pton` reads it: no names, no
    /// leading zeros), not a name to resolve.
    public var isNumeric: Bool {
        host.allSatisfy(\.isASCII) && (try? SocketAddress(ipAddress: host, port: Int(port))) != nil
    }
}

/// One UDP datagram and the address it came from or goes to.
public struct Datagram: Sendable {
    public let address: PeerAddress
    public let bytes: [UInt8]
    /// For an outgoing datagram, the IP TTL (IPv6 hop limit) it leaves with instead of the system's:
    /// a rendezvous opening dies past this node's own router (PROTOCOL.md §12a). Nil for every other.
    public let hopLimit: UInt8?

    public init(address: PeerAddress, bytes: [UInt8], hopLimit: UInt8? = nil) {
        self.address = address
        self.bytes = bytes
        self.hopLimit = hopLimit
    }
}
