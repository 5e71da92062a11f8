internal import CSodium

/// Linkable spontaneous anonymous group signatures over ristretto255 (docs/BALLOTS.md §2).
///
/// With ring keys K₀…Kₙ₋₁, the signer's index π and scalar x (Kπ = x·B), scope s and message m:
/// H = from_hash(BLAKE2b-512("parley/2 lsag tag base" || s)), tag I = x·H,
/// P = BLAKE2b-512("parley/2 lsag" || s || u16 n || K₀…Kₙ₋₁ || I || u32 |m| || m), and
/// c(L, R) = BLAKE2b-512(P || L || R) mod ℓ. The signer draws α and rᵢ (i ≠ π), walks
/// Lᵢ = rᵢ·B + cᵢ·Kᵢ, Rᵢ = rᵢ·H + cᵢ·I, cᵢ₊₁ = c(Lᵢ, Rᵢ) round the ring from Lπ = α·B, Rπ = α·H,
/// and closes it with rπ = α − cπ·x. A verifier walks the same ring from c₀ and must come back to c₀.
public enum LSAG {
    public static let minimumRing = 2
    public static let maximumRing = 1_024
    /// A scope is a chat id and a poll id: fixed-length, so the hashes need no length prefix for it.
    public static let scopeBytes = 64
    static let tagBaseLabel = Array("parley/2 lsag tag base".utf8)
    static let prefixLabel = Array("parley/2 lsag".utf8)

    /// The signer's tag in `scope`: what links two of its signatures there.
    public static func linkingTag(of key: BallotKeyPair, scope: [UInt8]) throws(CryptoError) -> LinkingTag {
        try Sodium.checkLength(scope, scopeBytes, "ring signature scope")
        let base = tagBase(scope)
        guard let tag = key.secret.withPointer({ Ristretto.multiply($0, base) }) else { throw .libraryUnavailable }
        return try LinkingTag(rawRepresentation: tag)
    }

    /// Signs `message` as one of `ring` (which must hold `signer`'s key once), with fresh random draws.
    public static func sign(_ message: [UInt8], ring: [BallotPublicKey], signer: BallotKeyPair, scope: [UInt8])
        throws(CryptoError) -> RingSignature
    {
        try sign(message, ring: ring, signer: signer, scope: scope) { _ in secureRandomBytes(count: 64) }
    }

    /// The same with given draws: 64 bytes for draw number k (α is draw 0, then rᵢ for i = π+1, π+2, …
    /// round the ring), each reduced mod ℓ. Only test vectors fix them: two signatures with one α give
    /// the key away, so this stays inside the package.
    package static func sign(
        _ message: [UInt8], ring: [BallotPublicKey], signer: BallotKeyPair, scope: [UInt8], randomness: (Int) -> [UInt8]
    ) throws(CryptoError) -> RingSignature {
        try checkRing(ring)
        try Sodium.checkLength(scope, scopeBytes, "ring signature scope")
        guard let signerIndex = ring.firstIndex(of: signer.publicKey) else {
            throw .badEncoding("the signer's ballot key is not in the ring")
        }
        let count = ring.count
        let base = tagBase(scope)
        let tag = try linkingTag(of: signer, scope: scope)
        let prefix = challengePrefix(scope: scope, ring: ring, tag: tag, message: message)

        let alpha = try SecretBytes(count: Ristretto.byteCount, failure: .libraryUnavailable) { out in
            var wide = randomness(0)
            defer { sodium_memzero(&wide, wide.count) }
            guard wide.count == 64 else { return -1 }
            crypto_core_ristretto255_scalar_reduce(out, wide)
            return 0
        }
        var challenges = [[UInt8]](repeating: [], count: count)
        var responses = [[UInt8]](repeating: [], count: count)
        guard let openingL = alpha.withPointer({ Ristretto.multiplyBase($0) }),
            let openingR = alpha.withPointer({ Ristretto.multiply($0, base) })
        else { throw .libraryUnavailable }
        challenges[(signerIndex + 1) % count] = challenge(prefix, openingL, openingR)
        for step in 1..<count {
            let index = (signerIndex + step) % count
            let wide = randomness(step)
            guard wide.count == 64 else {
                throw .badLength("ring signature randomness", expected: 64, actual: wide.count)
            }
            let response = Ristretto.reduce(wide)
            responses[index] = response
            guard let (left, right) = walk(response, challenges[index], ring[index], base, tag) else {
                throw .libraryUnavailable
            }
            challenges[(index + 1) % count] = challenge(prefix, left, right)
        }
        responses[signerIndex] = alpha.withPointer { a in
            signer.secret.withPointer { x in Ristretto.subtractProduct(a, challenges[signerIndex], x) }
        }
        return try RingSignature(linkingTag: tag, challenge: challenges[0], responses: responses)
    }

    /// Throws `badSignature` unless `signature` is a signature of `message` by a key of `ring` in `scope`.
    public static func verify(_ signature: RingSignature, message: [UInt8], ring: [BallotPublicKey], scope: [UInt8])
        throws(CryptoError)
    {
        try checkRing(ring)
        try Sodium.checkLength(scope, scopeBytes, "ring signature scope")
        guard signature.responses.count == ring.count else { throw .badSignature }
        let base = tagBase(scope)
        let prefix = challengePrefix(scope: scope, ring: ring, tag: signature.linkingTag, message: message)
        var current = signature.challenge
        for index in ring.indices {
            guard let (left, right) = walk(signature.responses[index], current, ring[index], base, signature.linkingTag)
            else {
                throw .badSignature
            }
            current = challenge(prefix, left, right)
        }
        guard sodium_memcmp(current, signature.challenge, Ristretto.byteCount) == 0 else { throw .badSignature }
    }

    static func checkRing(_ ring: [BallotPublicKey]) throws(CryptoError) {
        try Sodium.ensureInitialised()
        guard (minimumRing...maximumRing).contains(ring.count) else {
            throw .badEncoding("a ring has \(minimumRing) to \(maximumRing) keys, got \(ring.count)")
        }
        guard Set(ring).count == ring.count else { throw .badEncoding("a ring lists a key twice") }
    }

    /// One step: (r·B + c·K, r·H + c·I).
    static func walk(
        _ response: [UInt8], _ challenge: [UInt8], _ key: BallotPublicKey, _ base: [UInt8], _ tag: LinkingTag
    )
        -> ([UInt8], [UInt8])?
    {
        guard let left = Ristretto.combinationWithBase(response, challenge, key.rawRepresentation),
            let right = Ristretto.combination(response, base, challenge, tag.rawRepresentation)
        else { return nil }
        return (left, right)
    }

    static func tagBase(_ scope: [UInt8]) -> [UInt8] { Ristretto.fromHash(Ristretto.hash512([tagBaseLabel, scope])) }

    static func challengePrefix(scope: [UInt8], ring: [BallotPublicKey], tag: LinkingTag, message: [UInt8]) -> [UInt8] {
        let count = UInt16(ring.count)
        let length = UInt32(message.count)
        return Ristretto.hash512(
            [prefixLabel, scope, [UInt8(count >> 8), UInt8(count & 0xff)]] + ring.map(\.rawRepresentation)
                + [tag.rawRepresentation, [24, 16, 8, 0].map { UInt8((length >> $0) & 0xff) }, message])
    }

    static func challenge(_ prefix: [UInt8], _ left: [UInt8], _ right: [UInt8]) -> [UInt8] {
        Ristretto.reduce(Ristretto.hash512([prefix, left, right]))
    }
}
