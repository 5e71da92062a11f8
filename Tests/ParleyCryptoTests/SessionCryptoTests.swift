import ParleyCrypto
import Testing

struct SessionCryptoTests {
    @Test func keyExchangeGivesMatchingDirectionalKeys() throws {
        // Given two ephemeral key pairs
        let initiator = try EphemeralKeyPair.generate()
        let responder = try EphemeralKeyPair.generate()
        // When each derives session keys from the other's public key
        let a = try initiator.sessionKeys(initiator: true, peer: responder.publicKey)
        let b = try responder.sessionKeys(initiator: false, peer: initiator.publicKey)
        // Then what one sends, the other opens, in both directions
        let header: [UInt8] = [1, 3, 0, 0, 0, 7]
        let sealed = a.send.seal(Array("hello".utf8), counter: 1, associatedData: header)
        #expect(try b.receive.open(sealed, counter: 1, associatedData: header) == Array("hello".utf8))
        let back = b.send.seal(Array("hi".utf8), counter: 1, associatedData: header)
        #expect(try a.receive.open(back, counter: 1, associatedData: header) == Array("hi".utf8))
        // and the two directions use different keys
        #expect(throws: CryptoError.authenticationFailed) {
            try a.receive.open(sealed, counter: 1, associatedData: header)
        }
    }

    @Test func aeadRejectsTamperingWrongCounterAndWrongHeader() throws {
        let key = try SessionKey(rawRepresentation: [UInt8](repeating: 7, count: 32))
        let sealed = key.seal(Array("secret".utf8), counter: 5, associatedData: [9])
        var flipped = sealed
        flipped[0] ^= 0x80
        #expect(throws: CryptoError.authenticationFailed) { try key.open(flipped, counter: 5, associatedData: [9]) }
        #expect(throws: CryptoError.authenticationFailed) { try key.open(sealed, counter: 6, associatedData: [9]) }
        #expect(throws: CryptoError.authenticationFailed) { try key.open(sealed, counter: 5, associatedData: [8]) }
        #expect(throws: CryptoError.authenticationFailed) { try key.open([1, 2, 3], counter: 5, associatedData: [9]) }
        #expect(sealed.count == "secret".utf8.count + SessionKey.tagByteCount)
    }

    @Test func aeadMatchesAKnownVector() throws {
        // ChaCha20-Poly1305 IETF, key 0x00..0x1f, nonce 00000000 || counter 1 (big-endian), AD "parley", plaintext "abc".
        // Computed independently with PyNaCl (nacl.bindings.crypto_aead_chacha20poly1305_ietf_encrypt), as docs/PROTOCOL.md specifies.
        let key = try SessionKey(rawRepresentation: Array(0..<32))
        let sealed = key.seal(Array("abc".utf8), counter: 1, associatedData: Array("parley".utf8))
        #expect(Hex.encode(sealed) == SessionCryptoTests.pinnedVector)
    }

    static let pinnedVector = "083e1fae7d8f912de7e1728f42d038ab5c3811"

    @Test func sealingAfterAHeaderIsTheHeaderThenTheSameCiphertext() throws {
        let key = try SessionKey(rawRepresentation: Array(0..<32))
        let header = Array("parley".utf8)
        let packet = key.seal(Array("abc".utf8), counter: 1, after: header)
        #expect(Hex.encode(packet) == Hex.encode(header) + SessionCryptoTests.pinnedVector)
        #expect(
            try key.open(Array(packet.dropFirst(header.count)), counter: 1, associatedData: header) == Array("abc".utf8)
        )
        // No header: the ciphertext alone, sealed with no associated data.
        #expect(key.seal([1, 2], counter: 3, after: []) == key.seal([1, 2], counter: 3, associatedData: []))
    }

    @Test func sealedBoxOpensOnlyForTheIdentity() throws {
        let bob = try Identity.generate()
        let box = try bob.publicKey.agreementKey().seal(Array("for bob".utf8))
        #expect(try bob.openSealed(box) == Array("for bob".utf8))
        let eve = try Identity.generate()
        #expect(throws: CryptoError.authenticationFailed) { try eve.openSealed(box) }
    }
}
