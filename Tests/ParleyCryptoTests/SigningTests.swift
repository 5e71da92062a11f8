import Foundation
import ParleyCrypto
import Testing

struct SigningTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let seed: String, publicKey: String, message: String, signature: String
        var testDescription: String { "RFC 8032 vector, message \(message.count / 2) bytes" }
    }

    // RFC 8032 §7.1, tests 1 and 2.
    static let rfc8032 = [
        Vector(
            seed: "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
            publicKey: "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
            message: "",
            signature:
                "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
        ),
        Vector(
            seed: "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
            publicKey: "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
            message: "72",
            signature:
                "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"
        ),
    ]

    @Test(arguments: rfc8032)
    func signsAndVerifiesLikeRFC8032(_ vector: Vector) throws {
        let identity = try Identity(seed: Hex.decode(vector.seed))
        #expect(identity.publicKey.hex == vector.publicKey)
        let message = try Hex.decode(vector.message)
        let signature = identity.signature(for: message)
        #expect(Hex.encode(signature.rawRepresentation) == vector.signature)
        try identity.publicKey.verify(signature, for: message)
    }

    @Test func rejectsATamperedMessageOrSignature() throws {
        let identity = try Identity.generate()
        let message = Array("vote up".utf8)
        let signature = identity.signature(for: message)
        #expect(throws: CryptoError.badSignature) {
            try identity.publicKey.verify(signature, for: Array("vote dn".utf8))
        }
        var bytes = signature.rawRepresentation
        bytes[10] ^= 1
        #expect(throws: CryptoError.badSignature) {
            try identity.publicKey.verify(Signature(rawRepresentation: bytes), for: message)
        }
        let other = try Identity.generate()
        #expect(throws: CryptoError.badSignature) { try other.publicKey.verify(signature, for: message) }
    }

    @Test func rejectsKeysOfTheWrongLength() {
        #expect(throws: CryptoError.badLength("Ed25519 public key", expected: 32, actual: 31)) {
            try SigningPublicKey(rawRepresentation: [UInt8](repeating: 1, count: 31))
        }
        #expect(throws: CryptoError.self) { try Identity(seed: [1, 2, 3]) }
    }

    @Test func hashesWithBLAKE2b256() {
        // BLAKE2b-256("") and BLAKE2b-256("abc"), from the reference implementation.
        #expect(Hex.encode(BLAKE2b.hash256([])) == "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8")
        #expect(
            Hex.encode(BLAKE2b.hash256(Array("abc".utf8)))
                == "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319")
    }

    @Test func hexRoundTripsAndRejectsGarbage() throws {
        #expect(try Hex.decode("00ff10") == [0, 255, 16])
        #expect(Hex.encode([0xde, 0xad]) == "dead")
        #expect(throws: CryptoError.self) { try Hex.decode("abc") }
        #expect(throws: CryptoError.self) { try Hex.decode("zz") }
    }
}
