internal import CSodium

/// An X25519 public key (ephemeral, or derived from an Ed25519 identity).
public struct AgreementPublicKey: Hashable, Sendable {
    public static let byteCount = 32
    public let rawRepresentation: [UInt8]

    public init(rawRepresentation bytes: some Collection<UInt8>) throws(CryptoError) {
        try Sodium.checkLength(bytes, Self.byteCount, "X25519 public key")
        rawRepresentation = Array(bytes)
    }

    /// Anonymous sealed box (`crypto_box_seal`) to the owner of this key.
    public func seal(_ plaintext: [UInt8]) throws(CryptoError) -> [UInt8] {
        try Sodium.ensureInitialised()
        var out = [UInt8](repeating: 0, count: plaintext.count + Int(crypto_box_sealbytes()))
        guard crypto_box_seal(&out, plaintext, UInt64(plaintext.count), rawRepresentation) == 0 else {
            throw .keyExchangeFailed
        }
        return out
    }
}

/// A fresh X25519 key pair for one handshake; dropping it is what gives forward secrecy.
public struct EphemeralKeyPair: Sendable {
    public let publicKey: AgreementPublicKey
    private let secret: SecretBytes

    public static func generate() throws(CryptoError) -> EphemeralKeyPair {
        try Sodium.ensureInitialised()
        var publicBytes = [UInt8](repeating: 0, count: AgreementPublicKey.byteCount)
        let secret = try SecretBytes(count: 32, failure: .keyExchangeFailed) { crypto_kx_keypair(&publicBytes, $0) }
        return EphemeralKeyPair(publicKey: try AgreementPublicKey(rawRepresentation: publicBytes), secret: secret)
    }

    /// Directional session keys with libsodium's `crypto_kx`: the initiator is the kx "client".
    public func sessionKeys(initiator: Bool, peer: AgreementPublicKey) throws(CryptoError) -> SessionKeys {
        // One 64-byte secret holds rx then tx, so both halves are wiped together.
        let both = try SecretBytes(count: 64, failure: .keyExchangeFailed) { rx in
            secret.withPointer { sk in
                initiator
                    ? crypto_kx_client_session_keys(
                        rx, rx + 32, publicKey.rawRepresentation, sk, peer.rawRepresentation)
                    : crypto_kx_server_session_keys(
                        rx, rx + 32, publicKey.rawRepresentation, sk, peer.rawRepresentation)
            }
        }
        return SessionKeys(receive: SessionKey(secret: both, offset: 0), send: SessionKey(secret: both, offset: 32))
    }
}

public struct SessionKeys: Sendable {
    public let receive: SessionKey
    public let send: SessionKey
}
