/// The linking tag of a ring signature: the signer's secret scalar times a point hashed from the
/// signature's scope (a poll id). Two signatures by one key in one scope carry the same tag; tags
/// of one key in different scopes cannot be linked.
public struct LinkingTag: Hashable, Sendable, Comparable, CustomStringConvertible {
    public static let byteCount = Ristretto.byteCount
    public let rawRepresentation: [UInt8]

    /// Throws unless `bytes` is a ristretto255 element other than the identity.
    public init(rawRepresentation bytes: some Collection<UInt8>) throws(CryptoError) {
        let bytes = Array(bytes)
        try Sodium.ensureInitialised()
        try Sodium.checkLength(bytes, Self.byteCount, "linking tag")
        guard Ristretto.isValidPoint(bytes) else { throw .badEncoding("linking tag is not a ristretto255 point") }
        rawRepresentation = bytes
    }

    public var hex: String { Hex.encode(rawRepresentation) }
    public var description: String { hex }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        lhs.rawRepresentation.lexicographicallyPrecedes(rhs.rawRepresentation)
    }
}

/// A linkable ring signature (LSAG, Liu–Wei–Wong 2004, with a scope-bound tag): the linking tag,
/// the first challenge c₀, and one response per ring member, in ring order. See `LSAG` and docs/BALLOTS.md.
public struct RingSignature: Hashable, Sendable {
    public let linkingTag: LinkingTag
    public let challenge: [UInt8]
    public let responses: [[UInt8]]

    /// Bytes of a signature over a ring of `members`: tag, c₀, then the responses.
    public static func byteCount(members: Int) -> Int { 2 * Ristretto.byteCount + members * Ristretto.byteCount }

    /// Throws unless every scalar is canonical (below ℓ), so a signature has exactly one encoding.
    public init(linkingTag: LinkingTag, challenge: [UInt8], responses: [[UInt8]]) throws(CryptoError) {
        guard Ristretto.isCanonicalScalar(challenge) else {
            throw .badEncoding("ring challenge is not a canonical scalar")
        }
        for response in responses where !Ristretto.isCanonicalScalar(response) {
            throw .badEncoding("ring response is not a canonical scalar")
        }
        self.linkingTag = linkingTag
        self.challenge = challenge
        self.responses = responses
    }

    /// tag (32) || c₀ (32) || responses (32 each). The ring size is not written: the reader knows the ring.
    public var encoded: [UInt8] { linkingTag.rawRepresentation + challenge + responses.flatMap { $0 } }

    /// Reads a signature over a ring of `members` keys from exactly `bytes`.
    public init(decoding bytes: some Collection<UInt8>, members: Int) throws(CryptoError) {
        let bytes = Array(bytes)
        try Sodium.checkLength(bytes, Self.byteCount(members: members), "ring signature over \(members) members")
        let size = Ristretto.byteCount
        let responses = (0..<members).map { Array(bytes[(2 + $0) * size..<(3 + $0) * size]) }
        try self.init(
            linkingTag: LinkingTag(rawRepresentation: bytes[0..<size]), challenge: Array(bytes[size..<2 * size]),
            responses: responses)
    }
}
