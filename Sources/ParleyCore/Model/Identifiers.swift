public import ParleyCrypto

/// A peer is known by its Ed25519 public key.
public typealias PeerID = SigningPublicKey

/// A 32-byte BLAKE2b digest naming a signed object (a message or a chat).
public struct Digest32: Hashable, Sendable, Comparable, CustomStringConvertible {
    public static let byteCount = 32
    public let rawRepresentation: [UInt8]

    public init(rawRepresentation bytes: some Collection<UInt8>) throws(CoreError) {
        guard bytes.count == Self.byteCount else { throw .malformed("id must be 32 bytes, got \(bytes.count)") }
        rawRepresentation = Array(bytes)
    }

    static func hashing(_ bytes: [UInt8]) -> Digest32 {
        // BLAKE2b-256 always yields 32 bytes.
        Digest32(uncheckedRaw: BLAKE2b.hash256(bytes))
    }

    private init(uncheckedRaw: [UInt8]) { rawRepresentation = uncheckedRaw }

    /// One pass over the 32 bytes: the synthesised form feeds the hasher a byte at a time, which
    /// showed in the receive path's profile (ids key every dictionary and set there).
    public func hash(into hasher: inout Hasher) {
        rawRepresentation.withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    public var hex: String { Hex.encode(rawRepresentation) }
    public var description: String { hex }
    public var shortHex: String { String(hex.prefix(12)) }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        lhs.rawRepresentation.lexicographicallyPrecedes(rhs.rawRepresentation)
    }
}

/// The id of a message: BLAKE2b-256 of its signed encoding.
public typealias MessageID = Digest32
/// The id of a chat: BLAKE2b-256 of its signed invite.
public typealias ChatID = Digest32

extension SigningPublicKey {
    public var shortHex: String { String(hex.prefix(12)) }
}
