import ParleyCore
import ParleyCrypto
import Testing

/// PROTOCOL §4.3's legacy-chat batch, byte for byte as the document prints it (made by the Python
/// implementation of §15): what this implementation encodes, decodes, hashes and signs must stay
/// those bytes however `Message` is held in memory.
struct LegacyChatVectorsTests {
    static func hex(_ text: String) -> [UInt8] { (try? Hex.decode(text)) ?? [] }

    static let chained = hex(
        "0201" + "8ad703264ff57ef6232a1d83f8d95ce80132e40e4caed7be8636dde41cb2572b"
            + "8a88e3dd7409f195fd52db2d3cba5d72ca6709bf1d94121bf3748801b40f6f5c"
            + "0000000000000001" + "0000000000000000000000000000000000000000000000000000000000000000"
            + "0000000000000001" + "000000000000002a" + "0454657874" + "00" + "00000002" + "6869" + "00")
    static let head = hex(
        "0201" + "8ad703264ff57ef6232a1d83f8d95ce80132e40e4caed7be8636dde41cb2572b"
            + "8a88e3dd7409f195fd52db2d3cba5d72ca6709bf1d94121bf3748801b40f6f5c"
            + "0000000000000002" + "e08a9c6f95b059909d7b32ac195d1a9c5bf5a7a981cb3326f4184fda04e23de9"
            + "0000000000000002" + "000000000000002b" + "0454657874" + "00" + "00000005" + "7468657265" + "01"
            + "4a7ba9cdd4654d058e325ea8f839ad6e301b19fd051de017ba08ac7f2603f465071f6c06bd8e3b8e0988fb1f132a07573062753f839e1a3419968887aa617c08"
    )

    @Test func theDocumentedBatchDecodesToItsIdsAndItsHeadVerifies() throws {
        let first = try Message(decoding: Self.chained)
        let second = try Message(decoding: Self.head)
        #expect(Self.chained.count == 135 && Self.head.count == 202)
        #expect(first.id.hex == "e08a9c6f95b059909d7b32ac195d1a9c5bf5a7a981cb3326f4184fda04e23de9")
        #expect(second.id.hex == "1eb3f46bb843fd2e13636c2d2d139d7b0ea9761ba64c376fa61dda32cda4433c")
        #expect(first.chat == Fixtures.invite.id && first.author == Fixtures.alice.publicKey)
        #expect(!first.isHead && second.isHead && second.previous == first.id)
        try second.verifySignature()
    }

    @Test func encodingTheDocumentedFieldsGivesTheDocumentedBytes() throws {
        let first = try MessageDraft(
            chat: Fixtures.invite.id, author: Fixtures.alice.publicKey, sequence: 1, lamport: 1, timestampMillis: 42,
            tag: .text, content: Array("hi".utf8)
        ).chained()
        let second = try MessageDraft(
            chat: Fixtures.invite.id, author: Fixtures.alice.publicKey, sequence: 2, previous: first.id, lamport: 2,
            timestampMillis: 43, tag: .text, content: Array("there".utf8)
        ).signed(by: Fixtures.alice)
        #expect(first.encoded == Self.chained)
        #expect(second.encoded == Self.head)
        // A decoded copy is the same message, and hashes alike.
        let decoded = try Message(decoding: Self.head)
        #expect(decoded == second && Set([decoded, second]).count == 1)
    }
}
