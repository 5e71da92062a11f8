public import ParleyCrypto

/// A peer is known by its Ed25519 public key.
public typealias PeerID = SigningPublicKey

/// A 32-byte BLAKE2b digest naming a signed object (a message or a chat).
public struct Digest32: Hashable, Sendable, Comparable, CustomStringConvertible {
    public static let byteCount = 32
    /// The digest's 32 bytes, inline (see `Bytes32`).
    public let bytes: Bytes32

    public var rawRepresentation: [UInt8] { bytes.array }

    public init(rawRepresentation bytes: some Collection<UInt8>) throws(CoreError) {
        guard bytes.count == Self.byteCount else { throw .malformed("id must be 32 bytes, got \(bytes.count)") }
        self.bytes = Bytes32(bytes)
    }

    /// The BLAKE2b-256 digest of `bytes`.
    static func hashing(_ bytes: UnsafeRawBufferPointer) -> Digest32 {
        Digest32(bytes: BLAKE2b.hash256Inline(bytes))
    }

    static func hashing(_ bytes: [UInt8]) -> Digest32 {
        bytes.withUnsafeBytes { hashing($0) }
    }

    /// An id read as 32 bytes.
    public init(bytes: Bytes32) { self.bytes = bytes }

    public var hex: String { Hex.encode(rawRepresentation) }
    public var description: String { hex }
    public var shortHex: String { String(hex.prefix(12)) }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.bytes < rhs.bytes }
}

/// The id of a message: BLAKE2b-256 of its signed encoding.
public typealias MessageID = Digest32
/// The id of a chat: BLAKE2b-256 of its signed invite.
public typealias ChatID = Digest32

extension SigningPublicKey {
    public var shortHex: String { String(hex.prefix(12)) }
}
