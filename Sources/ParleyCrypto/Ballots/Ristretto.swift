internal import CSodium

/// ristretto255 (libsodium's `crypto_core_ristretto255_*`): a prime-order group, so no cofactor
/// checks; points and scalars are 32 bytes. Kept internal: callers see `BallotPublicKey` and `RingSignature`.
enum Ristretto {
    static let byteCount = 32

    /// The encoding of the identity element: the zero point, which no key or tag may be.
    static let identity = [UInt8](repeating: 0, count: byteCount)

    /// A canonical encoding of a group element other than the identity.
    static func isValidPoint(_ bytes: [UInt8]) -> Bool {
        bytes.count == byteCount && bytes != identity && crypto_core_ristretto255_is_valid_point(bytes) == 1
    }

    /// A scalar below the group order ℓ: reducing it (padded to 64 bytes) leaves it unchanged. Wire
    /// scalars must be canonical, or one signature would have many encodings.
    static func isCanonicalScalar(_ bytes: [UInt8]) -> Bool {
        bytes.count == byteCount && reduce(bytes + [UInt8](repeating: 0, count: 32)) == bytes
    }

    /// A 64-byte hash reduced modulo ℓ.
    static func reduce(_ wide: [UInt8]) -> [UInt8] {
        precondition(wide.count == 64)
        var out = [UInt8](repeating: 0, count: byteCount)
        crypto_core_ristretto255_scalar_reduce(&out, wide)
        return out
    }

    /// The element a 64-byte hash maps to (Elligator, libsodium's `from_hash`).
    static func fromHash(_ wide: [UInt8]) -> [UInt8] {
        precondition(wide.count == 64)
        var out = [UInt8](repeating: 0, count: byteCount)
        crypto_core_ristretto255_from_hash(&out, wide)
        return out
    }

    /// scalar·B; nil for the zero scalar (libsodium refuses an identity result).
    static func multiplyBase(_ scalar: UnsafePointer<UInt8>) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: byteCount)
        return crypto_scalarmult_ristretto255_base(&out, scalar) == 0 ? out : nil
    }

    /// scalar·point; nil when the result would be the identity.
    static func multiply(_ scalar: UnsafePointer<UInt8>, _ point: [UInt8]) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: byteCount)
        return crypto_scalarmult_ristretto255(&out, scalar, point) == 0 ? out : nil
    }

    static func add(_ p: [UInt8], _ q: [UInt8]) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: byteCount)
        return crypto_core_ristretto255_add(&out, p, q) == 0 ? out : nil
    }

    /// (a·P) + (b·Q), the step every ring member costs twice. nil if a product or the sum is invalid.
    static func combination(_ a: UnsafePointer<UInt8>, _ p: [UInt8], _ b: [UInt8], _ q: [UInt8]) -> [UInt8]? {
        guard let left = multiply(a, p), let right = multiply(b, q) else { return nil }
        return add(left, right)
    }

    /// a·B + b·Q.
    static func combinationWithBase(_ a: UnsafePointer<UInt8>, _ b: [UInt8], _ q: [UInt8]) -> [UInt8]? {
        guard let left = multiplyBase(a), let right = multiply(b, q) else { return nil }
        return add(left, right)
    }

    /// x − y·z mod ℓ (the response that closes the ring).
    static func subtractProduct(_ x: UnsafePointer<UInt8>, _ y: [UInt8], _ z: UnsafePointer<UInt8>) -> [UInt8] {
        var product = [UInt8](repeating: 0, count: byteCount)
        // c·x with c public gives x away: wiped before it is freed.
        defer { sodium_memzero(&product, byteCount) }
        crypto_core_ristretto255_scalar_mul(&product, y, z)
        var out = [UInt8](repeating: 0, count: byteCount)
        crypto_core_ristretto255_scalar_sub(&out, x, product)
        return out
    }

    /// BLAKE2b-512 of the concatenation of `parts`.
    static func hash512(_ parts: [[UInt8]]) -> [UInt8] {
        let input = parts.flatMap { $0 }
        var out = [UInt8](repeating: 0, count: 64)
        crypto_generichash(&out, 64, input, UInt64(input.count), nil, 0)
        return out
    }
}
