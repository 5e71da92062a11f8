internal import CSodium

/// An Ed25519 public key: a peer's identity on the wire and in the store.
public struct SigningPublicKey: Hashable, Sendable, Comparable, CustomStringConvertible {
    public static let byteCount = 32
    /// The key's 32 bytes, inline (see `Bytes32`).
    public let bytes: Bytes32

    public var rawRepresentation: [UInt8] { bytes.array }

    public init(rawRepresentation bytes: some Collection<UInt8>) throws(CryptoError) {
        try Sodium.checkLength(bytes, Self.byteCount, "Ed25519 public key")
        self.bytes = Bytes32(bytes)
    }

    /// A key read as 32 bytes (any 32 bytes name a key; a forged one verifies nothing).
    public init(bytes: Bytes32) {
        self.bytes = bytes
    }

    /// Throws `badSignature` unless `signature` is this key's signature over `message`.
    public func verify(_ signature: Signature, for message: [UInt8]) throws(CryptoError) {
        try Sodium.ensureInitialised()
        let rc = bytes.withUnsafePointer { key in
            crypto_sign_verify_detached(signature.rawRepresentation, message, UInt64(message.count), key)
        }
        guard rc == 0 else { throw .badSignature }
    }

    /// The X25519 key derived from this Ed25519 key, to seal boxes to its owner.
    public func agreementKey() throws(CryptoError) -> AgreementPublicKey {
        try Sodium.ensureInitialised()
        var out = [UInt8](repeating: 0, count: AgreementPublicKey.byteCount)
        guard crypto_sign_ed25519_pk_to_curve25519(&out, rawRepresentation) == 0 else { throw .keyExchangeFailed }
        return try AgreementPublicKey(rawRepresentation: out)
    }

    public var hex: String { Hex.encode(rawRepresentation) }
    public var description: String { hex }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.bytes < rhs.bytes }
}

/// A detached Ed25519 signature.
public struct Signature: Hashable, Sendable {
    public static let byteCount = 64
    public let rawRepresentation: [UInt8]

    public init(rawRepresentation bytes: some Collection<UInt8>) throws(CryptoError) {
        try Sodium.checkLength(bytes, Self.byteCount, "Ed25519 signature")
        rawRepresentation = Array(bytes)
    }

    /// A signature `fill` writes (libsodium's signing functions), into a buffer of exactly `byteCount` bytes:
    /// no length to check, so nothing to throw.
    fileprivate init(filling fill: (UnsafeMutablePointer<UInt8>) -> Void) {
        var bytes = [UInt8](repeating: 0, count: Self.byteCount)
        fill(&bytes)
        rawRepresentation = bytes
    }
}

/// A node's long-term identity: an Ed25519 key pair. The secret half never leaves this type.
public struct Identity: Sendable {
    public static let seedByteCount = 32
    public let publicKey: SigningPublicKey
    private let secretKey: SecretBytes // libsodium's 64-byte form: seed || public key
    let seed: SecretBytes

    public static func generate() throws(CryptoError) -> Identity {
        try Identity(seed: Sodium.randomBytes(seedByteCount))
    }

    /// Deterministic identity from a 32-byte seed (RFC 8032 private key); used by key files and test vectors.
    public init(seed bytes: [UInt8]) throws(CryptoError) {
        try Sodium.ensureInitialised()
        try Sodium.checkLength(bytes, Self.seedByteCount, "Ed25519 seed")
        let seed = try SecretBytes(copying: bytes)
        var publicBytes = [UInt8](repeating: 0, count: SigningPublicKey.byteCount)
        secretKey = try SecretBytes(count: 64, failure: .libraryUnavailable) { sk in
            seed.withPointer { crypto_sign_seed_keypair(&publicBytes, sk, $0) }
        }
        self.seed = seed
        publicKey = try SigningPublicKey(rawRepresentation: publicBytes)
    }

    public func signature(for message: [UInt8]) -> Signature {
        Signature { out in
            secretKey.withPointer { sk in
                _ = crypto_sign_detached(out, nil, message, UInt64(message.count), sk)
            }
        }
    }

    /// Opens a box sealed to this identity's derived X25519 key (`SigningPublicKey.agreementKey()`).
    public func openSealed(_ box: [UInt8]) throws(CryptoError) -> [UInt8] {
        let overhead = Int(crypto_box_sealbytes())
        guard box.count >= overhead else { throw .authenticationFailed }
        let curvePublic = try publicKey.agreementKey()
        let curveSecret = try SecretBytes(count: 32, failure: .keyExchangeFailed) { out in
            secretKey.withPointer { crypto_sign_ed25519_sk_to_curve25519(out, $0) }
        }
        var plain = [UInt8](repeating: 0, count: box.count - overhead)
        let rc = curveSecret.withPointer { sk in
            crypto_box_seal_open(&plain, box, UInt64(box.count), curvePublic.rawRepresentation, sk)
        }
        guard rc == 0 else { throw .authenticationFailed }
        return plain
    }
}
