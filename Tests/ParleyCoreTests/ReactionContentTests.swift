import ParleyCore
import Testing

struct ReactionContentTests {
    @Test(arguments: [
        try ReactionContent.add(ReactionType("👍")),
        try ReactionContent.add(ReactionType("ship it"), score: -1_000_000, unique: true),
        try ReactionContent.add(ReactionType("x"), score: 1_000_000), ReactionContent.removal(try ReactionType("❤️")),
        try ReactionContent.add(ReactionType(String(repeating: "a", count: 64)), score: 0),
    ])
    func roundTrips(content: ReactionContent) throws {
        #expect(try ReactionContent.decode(content.encoded()) == content)
    }

    @Test func encodesTheDocumentedBytes() throws {
        // Given a unique "ok" reaction scored 258 (docs/PROTOCOL.md §13a)
        let content = try ReactionContent.add(ReactionType("ok"), score: 258, unique: true)
        // Then: version 1, flags 2 (unique), score i32 BE, type u8 length + UTF-8
        #expect(content.encoded() == [0x01, 0x02, 0x00, 0x00, 0x01, 0x02, 0x02, 0x6F, 0x6B])
        // and a removal of "ok" has flag 1 and score 0; a negative score is two's complement
        #expect(
            ReactionContent.removal(try ReactionType("ok")).encoded() == [0x01, 0x01, 0, 0, 0, 0, 0x02, 0x6F, 0x6B])
        #expect(
            try ReactionContent.add(ReactionType("ok"), score: -1).encoded() == [
                0x01, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0x02, 0x6F, 0x6B,
            ])
    }

    @Test(
        arguments: [
            [], [0x01], [0x02, 0x00, 0, 0, 0, 1, 1, 0x61], // empty, truncated, unknown version
            [0x01, 0x04, 0, 0, 0, 1, 1, 0x61], [0x01, 0x03, 0, 0, 0, 0, 1, 0x61], // unknown flag, removed + unique
            [0x01, 0x01, 0, 0, 0, 1, 1, 0x61], // a removal with a score
            [0x01, 0x00, 0, 0x0F, 0x42, 0x41, 1, 0x61], // score 1,000,001
            [0x01, 0x00, 0x80, 0, 0, 0, 1, 0x61], // score Int32.min
            // empty, control, not UTF-8
            [0x01, 0x00, 0, 0, 0, 1, 0], [0x01, 0x00, 0, 0, 0, 1, 1, 0x0A], [0x01, 0x00, 0, 0, 0, 1, 1, 0xFF],
            [0x01, 0x00, 0, 0, 0, 1, 2, 0x61], [0x01, 0x00, 0, 0, 0, 1, 1, 0x61, 0x00], // short type, trailing byte
            [0x01, 0x00, 0, 0, 0, 1, 65] + [UInt8](repeating: 0x61, count: 65), // type over 64 bytes
        ] as [[UInt8]])
    func rejectsMalformedContent(bytes: [UInt8]) {
        #expect(throws: CoreError.self) { try ReactionContent.decode(bytes) }
    }

    @Test func refusesOutOfRangeScoresLocally() throws {
        let type = try ReactionType("+1")
        #expect(throws: CoreError.self) { try ReactionContent.add(type, score: 1_000_001) }
        #expect(throws: CoreError.self) { try ReactionContent.add(type, score: Int.min) }
    }

    @Test(arguments: ["", "a\u{7}b", "tab\there", String(repeating: "é", count: 33)])
    func refusesInvalidTypes(text: String) {
        #expect(throws: CoreError.self) { try ReactionType(text) }
    }

    @Test func typesCompareByBytesNotByCanonicalEquivalence() throws {
        // "é" precomposed and decomposed are equal Strings but different reaction types
        let composed = try ReactionType("\u{E9}"), decomposed = try ReactionType("e\u{301}")
        #expect(composed != decomposed)
        #expect(Set([composed, decomposed]).count == 2)
        #expect(decomposed < composed) // 0x65 < 0xC3
    }
}
