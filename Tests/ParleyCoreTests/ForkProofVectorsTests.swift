import ParleyCore
import ParleyCrypto
import Testing

/// PROTOCOL.md §4.4's fork proof vectors, made by the independent Python code of
/// Tests/protocol/fork_proof.py: alice signs "hi" and "bye" for sequence 1 of the §4.3 legacy chat,
/// then "there" at sequence 2 naming "hi".
struct ForkProofVectorsTests {
    static func head(_ text: String, sequence: UInt64 = 1, previous: MessageID? = nil) throws -> Message {
        try MessageDraft(
            chat: Fixtures.invite.id, author: Fixtures.alice.publicKey, sequence: sequence, previous: previous,
            lamport: sequence,
            timestampMillis: 41 + Int64(sequence), tag: .text, content: Array(text.utf8)
        ).signed(by: Fixtures.alice)
    }

    static func digest(_ bytes: [UInt8]) -> String { Hex.encode(BLAKE2b.hash256(bytes)) }

    @Test func twoHeadsForOneSlotMakeTheDocumentedProof() throws {
        let proof = try ForkProof(first: [Self.head("hi")], second: [Self.head("bye")])
        #expect(proof.encoded.count == 412)
        #expect(Self.digest(proof.encoded) == "7577b29eba35710399405bc32b6e5663cc58487aa3f562044022af890974e4f6")
        let decoded = try ForkProof(decoding: proof.encoded)
        #expect(
            decoded.author == Fixtures.alice.publicKey && decoded.sequence == 1 && decoded.chat == Fixtures.invite.id)
    }

    @Test func aProofsSlotIsReadWithoutCheckingIt() throws {
        let proof = try ForkProof(first: [Self.head("hi")], second: [Self.head("bye")])
        let slot = try #require(ForkProof.slot(inEncoding: proof.encoded))
        #expect(slot.chat == Fixtures.invite.id && slot.author == Fixtures.alice.publicKey && slot.sequence == 1)
        #expect(ForkProof.slot(inEncoding: Array(proof.encoded.prefix(40))) == nil)
        #expect(ForkProof.slot(inEncoding: [0x02] + proof.encoded.dropFirst()) == nil)
    }

    @Test func aNextMessageNamingAnotherPreviousMakesTheDocumentedProof() throws {
        let hi = try Self.head("hi")
        let proof = try ForkProof(first: [Self.head("bye")], second: [Self.head("there", sequence: 2, previous: hi.id)])
        #expect(proof.encoded.count == 415)
        #expect(Self.digest(proof.encoded) == "2c29a11b61ff09bdcd962b1ad245bf7b4cc8e32a896158f6ff912c93d8c2e722")
        #expect(try ForkProof(decoding: proof.encoded).sequence == 1)
    }

    @Test func branchesThatAgreeProveNothing() throws {
        let hi = try Self.head("hi")
        #expect(throws: CoreError.self) { try ForkProof(first: [hi], second: [hi]) }
        #expect(throws: CoreError.self) {
            try ForkProof(first: [hi], second: [Self.head("there", sequence: 2, previous: hi.id)])
        }
        #expect(throws: CoreError.self) {
            try ForkProof(first: [hi], second: [Self.head("far", sequence: 3, previous: hi.id)])
        }
    }

    @Test func aBranchMustBeLinkedAndEndAtAHeadThatVerifies() throws {
        let hi = try Self.head("hi"), bye = try Self.head("bye")
        let chained = try MessageDraft(
            chat: Fixtures.invite.id, author: Fixtures.alice.publicKey, sequence: 1, lamport: 1, timestampMillis: 42,
            tag: .text,
            content: Array("x".utf8)
        ).chained()
        #expect(throws: CoreError.self) { try ForkProof(first: [hi], second: [chained]) }
        let unlinked = try Self.head("there", sequence: 2, previous: bye.id)
        #expect(throws: CoreError.self) {
            try ForkProof(first: [bye], second: [hi, Self.head("x", sequence: 3, previous: unlinked.id)])
        }
        var bytes = try ForkProof(first: [hi], second: [bye]).encoded
        bytes[bytes.count - 1] ^= 1
        #expect(throws: CoreError.self) { try ForkProof(decoding: bytes) }
        let mallory = try MessageDraft(
            chat: Fixtures.invite.id, author: Fixtures.mallory.publicKey, sequence: 1, lamport: 1, timestampMillis: 42,
            tag: .text,
            content: Array("hi".utf8)
        ).signed(by: Fixtures.mallory)
        #expect(throws: CoreError.self) { try ForkProof(first: [hi], second: [mallory]) }
    }
}
