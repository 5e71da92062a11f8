internal import CSodium

/// A chat's symmetric content key for one membership epoch (XChaCha20-Poly1305, IETF).
///
/// Many authors seal under the same key without coordinating, so every seal takes a fresh random
/// 24-byte nonce: at that size random nonces do not collide in practice.
public struct ChatKey: Sendable {
    public static let byteCount = 32
    public static let nonceByteCount = 24
    public static let tagByteCount = 16
    private let secret: SecretBytes

    public static func generate() throws(CryptoError) -> ChatKey {
        try Sodium.ensureInitialised()
        return ChatKey(
            secret: try SecretBytes(count: byteCount, failure: .libraryUnavailable) { key in
                crypto_aead_xchacha20poly1305_ietf_keygen(key)
                return 0
            })
    }

    public init(rawRepresentation bytes: [UInt8]) throws(CryptoError) {
        try Sodium.ensureInitialised()
        try Sodium.checkLength(bytes, Self.byteCount, "chat key")
        secret = try SecretBytes(copying: bytes)
    }

    private init(secret: SecretBytes) { self.secret = secret }

    /// The raw key, only to seal it to a member or keep it in the store (which is private to this node).
    public func withRawBytes<R>(_ body: ([UInt8]) throws -> R) rethrows -> R {
        var copy = secret.withPointer { Array(UnsafeBufferPointer(start: $0, count: Self.byteCount)) }
        defer { sodium_memzero(&copy, copy.count) }
        return try body(copy)
    }

    /// nonce || ciphertext || tag.
    public func seal(_ plaintext: [UInt8], associatedData: [UInt8]) -> [UInt8] {
        seal(plaintext, associatedData: associatedData, nonce: Sodium.randomBytes(Self.nonceByteCount))
    }

    /// `seal` with a nonce derived from the key and the associated data (keyed BLAKE2b): sealing the same
    /// plaintext under the same data twice gives the same bytes. Only for content that is one fixed
    /// value per associated data (a file's chunk, bound to its file and index): a holder resending a
    /// lost piece sends a piece of the very envelope it sent before, and nothing else repeats a nonce.
    public func sealDeterministic(_ plaintext: [UInt8], associatedData: [UInt8]) -> [UInt8] {
        var nonce = [UInt8](repeating: 0, count: Self.nonceByteCount)
        secret.withPointer { key in
            _ = crypto_generichash(
                &nonce, Self.nonceByteCount, associatedData, UInt64(associatedData.count), key, Self.byteCount)
        }
        return seal(plaintext, associatedData: associatedData, nonce: nonce)
    }

    private func seal(_ plaintext: [UInt8], associatedData: [UInt8], nonce: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: plaintext.count + Self.tagByteCount)
        var written: UInt64 = 0
        secret.withPointer { key in
            _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
                &out, &written, plaintext, UInt64(plaintext.count),
                associatedData, UInt64(associatedData.count), nil, nonce, key)
        }
        return nonce + out
    }

    /// Opens what `seal` produced; throws `authenticationFailed` for a wrong key or altered bytes.
    public func open(_ sealed: some Collection<UInt8>, associatedData: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard sealed.count >= Self.nonceByteCount + Self.tagByteCount else { throw .authenticationFailed }
        let bytes = Array(sealed)
        let nonce = Array(bytes[0..<Self.nonceByteCount])
        let body = Array(bytes[Self.nonceByteCount...])
        var out = [UInt8](repeating: 0, count: body.count - Self.tagByteCount)
        var written: UInt64 = 0
        let rc = secret.withPointer { key in
            crypto_aead_xchacha20poly1305_ietf_decrypt(
                &out, &written, nil, body, UInt64(body.count),
                associatedData, UInt64(associatedData.count), nonce, key)
        }
        guard rc == 0 else { throw .authenticationFailed }
        return out
    }
}
