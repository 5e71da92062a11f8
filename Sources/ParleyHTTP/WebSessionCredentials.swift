import ParleyCrypto

/// One browser's login, in two halves kept in two places: `id` in the node's HttpOnly cookie, `proof`
/// in the page's own storage (localStorage, which is per origin, so per port), sent as
/// `Authorization: Session PROOF` (and in the WebSocket's subprotocol list). A browser sends its
/// cookies for 127.0.0.1 to every port of it, so any other local web server the user visits gets the
/// cookie; without the proof it opens nothing. A script injected into the page could read the proof,
/// but not the HttpOnly cookie.
public struct WebSessionCredentials: Sendable, Hashable {
    public static let byteCount = 32

    public let id: String
    public let proof: String

    public init(id: String, proof: String) {
        self.id = id
        self.proof = proof
    }

    static func generate() -> WebSessionCredentials {
        WebSessionCredentials(
            id: Hex.encode(secureRandomBytes(count: byteCount)), proof: Hex.encode(secureRandomBytes(count: byteCount)))
    }

    /// What the node keeps of a session: a hash of both halves, so the sessions file (and the
    /// node's memory) hold nothing a browser could present.
    var key: String {
        Hex.encode(BLAKE2b.hash256(Array("parley-web-session\u{0}\(id)\u{0}\(proof)".utf8)))
    }

    /// Whether `text` has the shape of one half: 64 lower-case hex digits.
    static func isWellFormed(_ text: some StringProtocol) -> Bool {
        text.utf8.count == byteCount * 2 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}
