internal import CSodium

/// One direction's ChaCha20-Poly1305 (IETF) key. The nonce is 4 zero bytes then the 64-bit
/// big-endian packet counter, so a key must never seal two packets with the same counter.
public struct SessionKey: Sendable {
    public static let tagByteCount = 16
    private let secret: SecretBytes
    private let offset: Int

    init(secret: SecretBytes, offset: Int) {
        self.secret = secret
        self.offset = offset
    }

    public init(rawRepresentation bytes: [UInt8]) throws(CryptoError) {
        try Sodium.ensureInitialised()
        try Sodium.checkLength(bytes, 32, "session key")
        secret = try SecretBytes(copying: bytes)
        offset = 0
    }

    private func withKey<R>(_ body: (UnsafePointer<UInt8>) -> R) -> R {
        secret.withPointer { body($0 + offset) }
    }

    static func nonce(_ counter: UInt64) -> [UInt8] {
        var nonce = [UInt8](repeating: 0, count: 12)
        for index in 0..<8 { nonce[4 + index] = UInt8(truncatingIfNeeded: counter >> (56 - 8 * UInt64(index))) }
        return nonce
    }

    /// `header` then `plaintext` sealed with `header` as associated data, in one array: a data
    /// packet is built with one allocation and no copy of its ciphertext.
    public func seal(_ plaintext: [UInt8], counter: UInt64, after header: [UInt8]) -> [UInt8] {
        let nonce = Self.nonce(counter)
        let count = header.count + plaintext.count + Self.tagByteCount
        return [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
            _ = UnsafeMutableBufferPointer(rebasing: out[..<header.count]).initialize(from: header)
            var written: UInt64 = 0
            withKey { key in
                _ = crypto_aead_chacha20poly1305_ietf_encrypt(
                    out.baseAddress! + header.count, &written, plaintext, UInt64(plaintext.count),
                    header, UInt64(header.count), nil, nonce, key)
            }
            initialized = count
        }
    }

    public func seal(_ plaintext: [UInt8], counter: UInt64, associatedData: [UInt8]) -> [UInt8] {
        let nonce = Self.nonce(counter)
        var out = [UInt8](repeating: 0, count: plaintext.count + Self.tagByteCount)
        var written: UInt64 = 0
        withKey { key in
            _ = crypto_aead_chacha20poly1305_ietf_encrypt(
                &out, &written, plaintext, UInt64(plaintext.count),
                associatedData, UInt64(associatedData.count), nil, nonce, key)
        }
        return out
    }

    public func open(_ ciphertext: [UInt8], counter: UInt64, associatedData: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard ciphertext.count >= Self.tagByteCount else { throw .authenticationFailed }
        let nonce = Self.nonce(counter)
        var out = [UInt8](repeating: 0, count: ciphertext.count - Self.tagByteCount)
        var written: UInt64 = 0
        let rc = withKey { key in
            crypto_aead_chacha20poly1305_ietf_decrypt(
                &out, &written, nil, ciphertext, UInt64(ciphertext.count),
                associatedData, UInt64(associatedData.count), nonce, key)
        }
        guard rc == 0 else { throw .authenticationFailed }
        return out
    }
}
