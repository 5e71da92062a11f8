import ParleyCrypto

/// libsodium through ParleyCrypto, one core: what each message's crypto can cost at best.
struct CryptoLimits: Sendable {
    /// ChaCha20-Poly1305 seal then open of one 200-byte plaintext, per second.
    let aeadPerSecond: Double
    let signPerSecond: Double
    let verifyPerSecond: Double

    static let payloadBytes = 200

    static func measure(_ scale: Scale) throws -> CryptoLimits {
        let key = try SessionKey(rawRepresentation: secureRandomBytes(count: 32))
        let plaintext = secureRandomBytes(count: payloadBytes)
        let associatedData = secureRandomBytes(count: 9)
        var counter: UInt64 = 0
        var failures = 0
        let aead = Measure.rate(for: scale.microDuration, batch: 256) {
            counter += 1
            let sealed = key.seal(plaintext, counter: counter, associatedData: associatedData)
            if (try? key.open(sealed, counter: counter, associatedData: associatedData)) == nil { failures += 1 }
        }

        let identity = try Identity.generate()
        let message = secureRandomBytes(count: payloadBytes)
        var signature = identity.signature(for: message)
        let sign = Measure.rate(for: scale.microDuration, batch: 64) {
            signature = identity.signature(for: message)
        }
        let verify = Measure.rate(for: scale.microDuration, batch: 64) {
            if (try? identity.publicKey.verify(signature, for: message)) == nil { failures += 1 }
        }
        guard failures == 0 else { throw BenchError("\(failures) crypto round trips failed") }
        return CryptoLimits(aeadPerSecond: aead, signPerSecond: sign, verifyPerSecond: verify)
    }
}
