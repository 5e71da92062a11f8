internal import CSodium

/// A member's public ballot key in one chat: a ristretto255 point, published in the chat (a
/// "BallotKey" message) so that a secret poll can list it in its electorate (docs/BALLOTS.md).
public struct BallotPublicKey: Hashable, Sendable, Comparable, CustomStringConvertible {
    public static let byteCount = Ristretto.byteCount
    public let rawRepresentation: [UInt8]

    /// Throws unless `bytes` is a canonical ristretto255 encoding of an element other than the identity.
    public init(rawRepresentation bytes: some Collection<UInt8>) throws(CryptoError) {
        try Sodium.ensureInitialised()
        let bytes = Array(bytes)
        try Sodium.checkLength(bytes, Self.byteCount, "ballot key")
        guard Ristretto.isValidPoint(bytes) else { throw .badEncoding("ballot key is not a ristretto255 point") }
        rawRepresentation = bytes
    }

    public var hex: String { Hex.encode(rawRepresentation) }
    public var description: String { hex }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        lhs.rawRepresentation.lexicographicallyPrecedes(rhs.rawRepresentation)
    }
}

/// A member's ballot key pair in one chat. The secret scalar is derived from the identity's seed and
/// the chat id, so there is no new key file to keep, a restored identity recovers it, and one
/// member's keys in two chats cannot be linked. It never leaves this type.
public struct BallotKeyPair: Sendable {
    static let derivationLabel = Array("parley/2 ballot key".utf8)
    public let publicKey: BallotPublicKey
    let secret: SecretBytes

    /// x = BLAKE2b-512(key = identity seed, "parley/2 ballot key" || chat id) mod ℓ; public key x·B.
    public init(identity: Identity, chat: [UInt8]) throws(CryptoError) {
        try Sodium.ensureInitialised()
        try Sodium.checkLength(chat, 32, "chat id")
        let input = Self.derivationLabel + chat
        let secret = try SecretBytes(count: Ristretto.byteCount, failure: .libraryUnavailable) { scalar in
            var wide = [UInt8](repeating: 0, count: 64)
            defer { sodium_memzero(&wide, 64) }
            identity.seed.withPointer { seed in
                _ = crypto_generichash(&wide, 64, input, UInt64(input.count), seed, Identity.seedByteCount)
            }
            crypto_core_ristretto255_scalar_reduce(scalar, wide)
            return 0
        }
        guard let point = secret.withPointer({ Ristretto.multiplyBase($0) }) else { throw .libraryUnavailable }
        self.secret = secret
        publicKey = try BallotPublicKey(rawRepresentation: point)
    }
}
