import ParleyCore
import ParleyCrypto
import Testing

struct MessageCodecTests {
    @Test func roundTripsASignedMessageWithReferences() throws {
        let poll = try Fixtures.message(Fixtures.alice, seq: 1, lamport: 1, tag: .poll, text: "Pizza?")
        let vote = try Fixtures.vote(Fixtures.bob, .up, on: poll, seq: 1, lamport: 2)
        let decoded = try Message(decoding: vote.encoded)
        #expect(decoded == vote)
        #expect(decoded.references == [MessageReference(id: poll.id, tag: .pollVoteUp)])
        // The id hashes the body: every byte before the seal byte and the signature
        #expect(decoded.id == (try MessageID(rawRepresentation: BLAKE2b.hash256(Array(vote.encoded.dropLast(65))))))
        try decoded.verifySignature()
    }

    @Test func pinsTheEncodingOfAKnownMessage() throws {
        // A fixed identity and fields give fixed bytes: the id is a test vector for other implementations.
        let message = try Fixtures.message(Fixtures.alice, seq: 1, lamport: 1, text: "hi")
        #expect(message.encoded.count == 1 + 1 + 32 + 32 + 8 + 32 + 8 + 8 + 5 + 1 + 4 + 2 + 1 + 64)
        #expect(Array(message.encoded.prefix(2)) == [2, 1])
        #expect(message.id.hex == MessageCodecTests.knownMessageID)
        // The seal byte sits at 122 + (1 + 4) + 1 + 4 + 2 = 134, chained or signed (PROTOCOL §4.1)
        let chained = try message.draft.chained()
        #expect(chained.encoded.count == 135 && chained.encoded[134] == 0 && message.encoded[134] == 1)
        #expect(
            Message.isHead(inEncoding: chained.encoded) == false && Message.isHead(inEncoding: message.encoded) == true)
    }

    static let knownMessageID = "e08a9c6f95b059909d7b32ac195d1a9c5bf5a7a981cb3326f4184fda04e23de9"

    @Test func rejectsEveryTruncation() throws {
        let message = try Fixtures.message(Fixtures.alice, seq: 1, lamport: 1, text: "hello")
        for length in 0..<message.encoded.count {
            #expect(throws: CoreError.self) { try Message(decoding: Array(message.encoded.prefix(length))) }
        }
        #expect(throws: CoreError.self) { try Message(decoding: message.encoded + [0]) }
    }

    @Test func tellsAHeadFromItsSealByteWithoutDecoding() throws {
        // Given a signed vote with a reference, and the same message chained (no signature)
        let poll = try Fixtures.message(Fixtures.alice, seq: 1, lamport: 1, tag: .poll, text: "Pizza?")
        let head = try Fixtures.vote(Fixtures.bob, .up, on: poll, seq: 1, lamport: 2)
        let chained = try head.draft.chained()

        // Then the seal byte is found past the tag, the reference and the content
        #expect(Message.isHead(inEncoding: head.encoded) == true)
        #expect(Message.isHead(inEncoding: chained.encoded) == false)
        #expect(Message.isHead(inEncoding: poll.encoded) == true)
        // And bytes that end before the seal byte, or a seal byte other than 0 or 1, give no answer
        let sealAt = chained.encoded.count - 1
        var unsealed = chained.encoded
        unsealed[sealAt] = 2
        #expect(Message.isHead(inEncoding: unsealed) == nil)
        for length in 0...sealAt {
            #expect(Message.isHead(inEncoding: Array(chained.encoded.prefix(length))) == nil)
        }
    }

    @Test func rejectsAnotherVersion() throws {
        var bytes = try Fixtures.message(Fixtures.alice, seq: 1, lamport: 1).encoded
        bytes[0] = 1 // wire protocol 1, before hash chains
        #expect(throws: CoreError.unsupportedVersion(1)) { try Message(decoding: bytes) }
    }

    @Test func detectsATamperedBodyOrForgedAuthor() throws {
        let message = try Fixtures.message(Fixtures.alice, seq: 1, lamport: 1, text: "up")
        var bytes = message.encoded
        bytes[bytes.count - 66] ^= 1 // the last content byte, just before the seal byte and the signature
        let tampered = try Message(decoding: bytes)
        #expect(throws: CryptoError.badSignature) { try tampered.verifySignature() }
        #expect(tampered.id != message.id)
    }

    @Test func refusesOversizedContentAndTooManyReferences() throws {
        let big = String(repeating: "x", count: Message.maxContentBytes + 1)
        #expect(
            throws: CoreError.tooLarge(
                "message content", limit: Message.maxContentBytes, actual: Message.maxContentBytes + 1)
        ) {
            try Fixtures.message(Fixtures.alice, seq: 1, lamport: 1, text: big)
        }
        let refs = (0..<33).map { _ in MessageReference(id: Fixtures.invite.id, tag: .text) }
        #expect(throws: CoreError.self) { try Fixtures.message(Fixtures.alice, seq: 1, lamport: 1, refs: refs) }
        #expect(throws: CoreError.self) { try Fixtures.message(Fixtures.alice, seq: 0, lamport: 1) }
    }

    @Test func refusesToSignForSomeoneElse() throws {
        let draft = MessageDraft(
            chat: Fixtures.invite.id, author: Fixtures.bob.publicKey, sequence: 1, lamport: 1, timestampMillis: 0,
            tag: .text, content: [])
        #expect(throws: CoreError.self) { try draft.signed(by: Fixtures.alice) }
    }

    @Test(arguments: ["", String(repeating: "t", count: 65), "bad\u{7}tag"])
    func rejectsInvalidTags(_ text: String) {
        #expect(throws: CoreError.self) { try Tag(text) }
    }

    @Test func invitesRoundTripAndRejectForgery() throws {
        let invite = Fixtures.invite
        let decoded = try ChatInvite(decoding: invite.encoded)
        #expect(decoded == invite)
        #expect(decoded.members.count == 3)
        #expect(decoded.isMember(Fixtures.carol.publicKey))
        #expect(!decoded.isMember(Fixtures.mallory.publicKey))
        var forged = invite.encoded
        forged[40] ^= 1
        #expect(throws: CoreError.self) { try ChatInvite(decoding: forged) }
        #expect(throws: CoreError.self) { try ChatInvite(decoding: Array(invite.encoded.dropLast())) }
    }
}
