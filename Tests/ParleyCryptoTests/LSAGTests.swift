import Foundation
import ParleyCrypto
import ParleyTestKit
import Testing

/// The ballot ring signatures (docs/BALLOTS.md §1–§2) against the vectors of its §7, which the
/// independent Python implementation (Tests/protocol/ballots.py) computed and checks, and against
/// what a verifier must refuse.
struct LSAGTests {
    static let vectors = BallotDocumentVectors.values

    static func vector(_ name: String) throws -> [UInt8] {
        try #require(vectors[name], "docs/BALLOTS.md §7 has no '\(name)'")
    }

    /// Draws 0, 1, 2 of the vectors' fixed "randomness" (§7).
    static func vectorDraws() throws -> (Int) -> [UInt8] {
        let draws = try (0..<3).map { try vector("draw \($0)") }
        return { draws[$0] }
    }

    static let chat = [UInt8](repeating: 0xcc, count: 32)
    static let yesNoScope = chat + [UInt8](repeating: 0xdd, count: 32)
    static let optionsScope = chat + [UInt8](repeating: 0xee, count: 32)
    /// "parley/2 secret ballot" || the selection ["up"] (u8 count, u8 length, "up").
    static let upBallot = Array("parley/2 secret ballot".utf8) + [1, 2] + Array("up".utf8)

    static func key(_ name: String) throws -> BallotKeyPair {
        try BallotKeyPair(identity: Identity(seed: vector("\(name) seed")), chat: chat)
    }

    /// The vectors' electorate in ring order (by member id): bob, alice, carol.
    static func ring() throws -> [BallotPublicKey] {
        try ["bob", "alice", "carol"].map { try key($0).publicKey }
    }

    static func randomRing(_ count: Int, chat: [UInt8] = secureRandomBytes(count: 32)) throws -> [BallotKeyPair] {
        try (0..<count).map { _ in try BallotKeyPair(identity: Identity.generate(), chat: chat) }
    }

    // MARK: Vectors

    @Test func ballotKeysAreTheDocumentsDerivationFromTheIdentitySeed() throws {
        #expect(!Self.vectors.isEmpty, "docs/BALLOTS.md §7 did not parse")
        for name in ["alice", "bob", "carol", "dave"] {
            #expect(try Self.key(name).publicKey.rawRepresentation == Self.vector("\(name) ballot key"), "\(name)")
        }
        // One identity has unrelated keys in two chats.
        let elsewhere = try BallotKeyPair(
            identity: Identity(seed: Self.vector("alice seed")), chat: [UInt8](repeating: 0xcd, count: 32))
        #expect(try elsewhere.publicKey != Self.key("alice").publicKey)
    }

    @Test func linkingTagsAreTheDocumentsPerPoll() throws {
        let alice = try Self.key("alice")
        #expect(
            try LSAG.linkingTag(of: alice, scope: Self.yesNoScope).rawRepresentation == Self.vector("alice yes/no tag"))
        #expect(
            try LSAG.linkingTag(of: alice, scope: Self.optionsScope).rawRepresentation
                == Self.vector("alice options tag"))
    }

    @Test func aSignatureWithTheVectorDrawsIsTheDocumentsBytes() throws {
        let signature = try LSAG.sign(
            Self.upBallot, ring: Self.ring(), signer: Self.key("alice"), scope: Self.yesNoScope,
            randomness: Self.vectorDraws())
        #expect(try signature.encoded == Self.vector("alice yes/no signature"))
        #expect(try signature.linkingTag.rawRepresentation == Self.vector("alice yes/no tag"))
        // and the document's bytes decode to it and verify
        let decoded = try RingSignature(decoding: Self.vector("alice yes/no signature"), members: 3)
        #expect(decoded == signature)
        try LSAG.verify(decoded, message: Self.upBallot, ring: Self.ring(), scope: Self.yesNoScope)
    }

    @Test func theDocumentsNegativeVectorsAreRejected() throws {
        let ring = try Self.ring()
        // A response with one bit flipped is canonical but does not close the ring.
        let flipped = try RingSignature(decoding: Self.vector("reject: flipped response"), members: 3)
        #expect(throws: CryptoError.badSignature) {
            try LSAG.verify(flipped, message: Self.upBallot, ring: ring, scope: Self.yesNoScope)
        }
        // c₀ + ℓ is the same scalar, not its canonical encoding; the identity is no tag.
        #expect(throws: CryptoError.self) { try RingSignature(decoding: Self.vector("reject: c0 + l"), members: 3) }
        #expect(throws: CryptoError.self) {
            try RingSignature(decoding: Self.vector("reject: identity tag"), members: 3)
        }
        // The document's signature fails for another poll, another selection, or another ring.
        let signature = try RingSignature(decoding: Self.vector("alice yes/no signature"), members: 3)
        #expect(throws: CryptoError.badSignature) {
            try LSAG.verify(signature, message: Self.upBallot, ring: ring, scope: Self.optionsScope)
        }
        let down = Array("parley/2 secret ballot".utf8) + [1, 4] + Array("down".utf8)
        #expect(throws: CryptoError.badSignature) {
            try LSAG.verify(signature, message: down, ring: ring, scope: Self.yesNoScope)
        }
        let withDave = try [ring[0], Self.key("dave").publicKey, ring[2]]
        #expect(throws: CryptoError.badSignature) {
            try LSAG.verify(signature, message: Self.upBallot, ring: withDave, scope: Self.yesNoScope)
        }
        let reordered = [ring[1], ring[0], ring[2]]
        #expect(throws: CryptoError.badSignature) {
            try LSAG.verify(signature, message: Self.upBallot, ring: reordered, scope: Self.yesNoScope)
        }
        #expect(throws: CryptoError.self) {
            try LSAG.sign(
                Self.upBallot, ring: ring, signer: Self.key("dave"), scope: Self.yesNoScope,
                randomness: Self.vectorDraws())
        }
    }

    // MARK: Signing and verifying

    @Test func everyMemberOfARingCanSignAndItsSignatureVerifies() throws {
        let members = try Self.randomRing(5)
        let ring = members.map(\.publicKey).sorted()
        let scope = secureRandomBytes(count: 64)
        for member in members {
            let signature = try LSAG.sign(Self.upBallot, ring: ring, signer: member, scope: scope)
            try LSAG.verify(signature, message: Self.upBallot, ring: ring, scope: scope)
            #expect(signature.linkingTag == (try LSAG.linkingTag(of: member, scope: scope)))
            #expect(signature.encoded.count == RingSignature.byteCount(members: 5))
            // what goes on the wire reads back as the same signature
            #expect(try RingSignature(decoding: signature.encoded, members: 5) == signature)
        }
    }

    @Test func aKeyOutsideTheRingCannotSign() throws {
        let members = try Self.randomRing(4)
        let ring = members.dropLast().map(\.publicKey)
        #expect(throws: CryptoError.self) {
            try LSAG.sign(Self.upBallot, ring: ring, signer: members[3], scope: Self.yesNoScope)
        }
    }

    @Test func aSignatureFailsOverATamperedRing() throws {
        let members = try Self.randomRing(5)
        let ring = members.map(\.publicKey)
        let signature = try LSAG.sign(Self.upBallot, ring: ring, signer: members[2], scope: Self.yesNoScope)
        let stranger = try Self.randomRing(1, chat: Self.chat)[0].publicKey
        var replaced = ring
        replaced[4] = stranger
        var swapped = ring
        swapped.swapAt(0, 1)
        // Over ring B (one key replaced, or two keys swapped), a signature made over ring A fails.
        for tampered in [replaced, swapped, Array(ring.reversed())] {
            #expect(throws: CryptoError.badSignature) {
                try LSAG.verify(signature, message: Self.upBallot, ring: tampered, scope: Self.yesNoScope)
            }
        }
        // A ring with a key less or more does not even match the signature's length.
        #expect(throws: CryptoError.badSignature) {
            try LSAG.verify(signature, message: Self.upBallot, ring: Array(ring.dropLast()), scope: Self.yesNoScope)
        }
        #expect(throws: CryptoError.badSignature) {
            try LSAG.verify(signature, message: Self.upBallot, ring: ring + [stranger], scope: Self.yesNoScope)
        }
    }

    @Test func aRingHasTwoToTheLimitOfDistinctKeys() throws {
        let members = try Self.randomRing(2)
        #expect(throws: CryptoError.self) {
            try LSAG.sign(Self.upBallot, ring: [members[0].publicKey], signer: members[0], scope: Self.yesNoScope)
        }
        let twice = [members[0].publicKey, members[1].publicKey, members[0].publicKey]
        #expect(throws: CryptoError.self) {
            try LSAG.sign(Self.upBallot, ring: twice, signer: members[1], scope: Self.yesNoScope)
        }
        let pair = try LSAG.sign(
            Self.upBallot, ring: members.map(\.publicKey), signer: members[1], scope: Self.yesNoScope)
        try LSAG.verify(pair, message: Self.upBallot, ring: members.map(\.publicKey), scope: Self.yesNoScope)
    }

    @Test func twoSignaturesOfOneKeyLinkInOneScopeAndNotAcrossScopes() throws {
        let members = try Self.randomRing(3)
        let ring = members.map(\.publicKey)
        let up = try LSAG.sign(Self.upBallot, ring: ring, signer: members[0], scope: Self.yesNoScope)
        let again = try LSAG.sign(Array("another choice".utf8), ring: ring, signer: members[0], scope: Self.yesNoScope)
        let otherPoll = try LSAG.sign(Self.upBallot, ring: ring, signer: members[0], scope: Self.optionsScope)
        let otherMember = try LSAG.sign(Self.upBallot, ring: ring, signer: members[1], scope: Self.yesNoScope)
        #expect(up.linkingTag == again.linkingTag)
        #expect(up != again)
        #expect(up.linkingTag != otherPoll.linkingTag)
        #expect(up.linkingTag != otherMember.linkingTag)
    }

    @Test func aTagCannotBeMovedToAnotherSignature() throws {
        // Swapping in another member's tag (to dodge the link) breaks the signature.
        let members = try Self.randomRing(3)
        let ring = members.map(\.publicKey)
        let signature = try LSAG.sign(Self.upBallot, ring: ring, signer: members[0], scope: Self.yesNoScope)
        let foreign = try LSAG.linkingTag(of: members[1], scope: Self.yesNoScope)
        let forged = try RingSignature(
            linkingTag: foreign, challenge: signature.challenge, responses: signature.responses)
        #expect(throws: CryptoError.badSignature) {
            try LSAG.verify(forged, message: Self.upBallot, ring: ring, scope: Self.yesNoScope)
        }
    }

    // MARK: Encodings

    /// ℓ = 2^252 + 27742317777372353535851937790883648493, little-endian.
    static let order: [UInt8] = [
        0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
    ]

    /// a + b for 32-byte little-endian numbers (no overflow past 2^256 for the values used here).
    static func add(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        var carry = 0
        return (0..<32).map { index in
            let sum = Int(a[index]) + Int(b[index]) + carry
            carry = sum >> 8
            return UInt8(sum & 0xff)
        }
    }

    @Test func nonCanonicalScalarsAreRejected() throws {
        let members = try Self.randomRing(3)
        let ring = members.map(\.publicKey)
        let signature = try LSAG.sign(Self.upBallot, ring: ring, signer: members[1], scope: Self.yesNoScope)
        let tag = signature.linkingTag
        // Each scalar plus ℓ is the same scalar mod ℓ: a second encoding of the same signature, refused.
        #expect(throws: CryptoError.self) {
            try RingSignature(
                linkingTag: tag, challenge: Self.add(signature.challenge, Self.order), responses: signature.responses)
        }
        for index in 0..<3 {
            var responses = signature.responses
            responses[index] = Self.add(responses[index], Self.order)
            #expect(throws: CryptoError.self) {
                try RingSignature(linkingTag: tag, challenge: signature.challenge, responses: responses)
            }
            var bytes = signature.encoded
            bytes.replaceSubrange((64 + 32 * index)..<(96 + 32 * index), with: responses[index])
            #expect(throws: CryptoError.self) { try RingSignature(decoding: bytes, members: 3) }
        }
        // ℓ itself and all-ones are not scalars either; ℓ − 1 is.
        #expect(throws: CryptoError.self) {
            try RingSignature(linkingTag: tag, challenge: Self.order, responses: signature.responses)
        }
        #expect(throws: CryptoError.self) {
            try RingSignature(
                linkingTag: tag, challenge: [UInt8](repeating: 0xff, count: 32), responses: signature.responses)
        }
        var belowOrder = Self.order
        belowOrder[0] -= 1
        _ = try RingSignature(linkingTag: tag, challenge: belowOrder, responses: signature.responses)
    }

    @Test func zeroScalarsAndTheIdentityTagAreRejected() throws {
        let members = try Self.randomRing(3)
        let ring = members.map(\.publicKey)
        let signature = try LSAG.sign(Self.upBallot, ring: ring, signer: members[1], scope: Self.yesNoScope)
        let zero = [UInt8](repeating: 0, count: 32)
        #expect(throws: CryptoError.self) { try LinkingTag(rawRepresentation: zero) }
        #expect(throws: CryptoError.self) { try BallotPublicKey(rawRepresentation: zero) }
        let zeroChallenge = try RingSignature(
            linkingTag: signature.linkingTag, challenge: zero, responses: signature.responses)
        #expect(throws: CryptoError.badSignature) {
            try LSAG.verify(zeroChallenge, message: Self.upBallot, ring: ring, scope: Self.yesNoScope)
        }
        var responses = signature.responses
        responses[0] = zero
        let zeroResponse = try RingSignature(
            linkingTag: signature.linkingTag, challenge: signature.challenge, responses: responses)
        #expect(throws: CryptoError.badSignature) {
            try LSAG.verify(zeroResponse, message: Self.upBallot, ring: ring, scope: Self.yesNoScope)
        }
    }

    @Test func randomBytesAreNeverASignature() throws {
        let members = try Self.randomRing(3)
        let ring = members.map(\.publicKey)
        // Random bytes are almost never a point followed by four canonical scalars: they do not decode.
        var decoded = 0
        for _ in 0..<200
        where (try? RingSignature(decoding: secureRandomBytes(count: RingSignature.byteCount(members: 3)), members: 3))
            != nil
        {
            decoded += 1
        }
        #expect(decoded < 10)
        #expect(throws: CryptoError.self) { try RingSignature(decoding: secureRandomBytes(count: 100), members: 3) }
        // Well-formed random ones (a real tag, scalars below 2^252 < ℓ) decode but never verify.
        for _ in 0..<50 {
            let tag = try LSAG.linkingTag(of: members[Int.random(in: 0..<3)], scope: Self.yesNoScope)
            let scalars = (0..<4).map { _ in
                var scalar = secureRandomBytes(count: 32)
                scalar[31] &= 0x0f
                return scalar
            }
            let signature = try RingSignature(linkingTag: tag, challenge: scalars[0], responses: Array(scalars[1...]))
            #expect(throws: CryptoError.badSignature) {
                try LSAG.verify(signature, message: Self.upBallot, ring: ring, scope: Self.yesNoScope)
            }
        }
    }
}
