import Testing
import ParleyTerminal

struct KeyDecoderTests {
    @Test(arguments: [
        ([UInt8]("hi".utf8), [Key.character("h"), .character("i")]),
        ([0x0D], [.enter]),
        ([0x0A], [.enter]),
        ([0x7F], [.backspace]),
        ([0x08], [.backspace]),
        ([0x09], [.tab]),
        ([0x03], [.control("c")]),
        ([0x04], [.control("d")]),
        ([0x0E, 0x10], [.control("n"), .control("p")]),
        ([0x1B, 0x5B, 0x41], [.up]),
        ([0x1B, 0x5B, 0x42], [.down]),
        ([0x1B, 0x5B, 0x43], [.right]),
        ([0x1B, 0x5B, 0x44], [.left]),
        ([0x1B, 0x4F, 0x41], [.up]),
        ([0x1B, 0x4F, 0x48], [.home]),
        ([0x1B, 0x5B, 0x48], [.home]),
        ([0x1B, 0x5B, 0x46], [.end]),
        ([0x1B, 0x5B, 0x5A], [.backTab]),
        ([UInt8]("\u{1B}[5~".utf8), [.pageUp]),
        ([UInt8]("\u{1B}[6~".utf8), [.pageDown]),
        ([UInt8]("\u{1B}[3~".utf8), [.delete]),
        ([UInt8]("\u{1B}[1~\u{1B}[4~".utf8), [.home, .end]),
        ([UInt8]("\u{1B}[1;5A".utf8), [.up]),
        ([UInt8]("\u{1B}[99~x".utf8), [.character("x")]), // unknown sequence dropped whole
        ([UInt8]("\u{1B}[200~".utf8), []),
        ([0x1B, 0x1B, 0x5B, 0x41], [.escape, .up]),
        ([0x1B, 0x61], [.escape, .character("a")]),
        ([UInt8]("é".utf8), [.character("é")]),
        ([UInt8]("日本".utf8), [.character("日"), .character("本")]),
        ([UInt8]("👍".utf8), [.character("👍")]),
        ([0xFF, 0x41], [.character("A")]), // invalid byte dropped
        ([0xC3, 0x41], [.character("A")]), // truncated character dropped, the next kept
        ([0x00, 0x1C], []),
    ])
    func decodesWholeReads(bytes: [UInt8], expected: [Key]) {
        var decoder = KeyDecoder()
        #expect(decoder.decode(bytes) == expected)
        #expect(!decoder.hasPending)
    }

    @Test(arguments: [
        [[0x1B], [0x5B], [0x41]],
        [[0x1B, 0x5B], [0x41]],
        [[0x1B], [0x5B, 0x41]],
    ])
    func anEscapeSequenceSplitAcrossReadsIsOneKey(reads: [[UInt8]]) {
        var decoder = KeyDecoder()
        var keys: [Key] = []
        for read in reads { keys += decoder.decode(read) }
        #expect(keys == [.up])
    }

    @Test func aPageUpSplitInsideItsParametersIsOneKey() {
        var decoder = KeyDecoder()
        #expect(decoder.decode([0x1B, 0x5B, 0x35]) == [])
        #expect(decoder.hasPending)
        #expect(decoder.decode([0x7E, 0x61]) == [.pageUp, .character("a")])
    }

    @Test func aMultiByteCharacterSplitAcrossReadsIsOneKey() {
        var decoder = KeyDecoder()
        let bytes = [UInt8]("😀".utf8)
        #expect(decoder.decode(bytes[0..<1]) == [])
        #expect(decoder.decode(bytes[1..<3]) == [])
        #expect(decoder.decode(bytes[3...] + [0x21]) == [.character("😀"), .character("!")])
    }

    @Test func aLoneEscapeIsTheEscapeKeyOnceNothingFollows() {
        var decoder = KeyDecoder()
        #expect(decoder.decode([0x61, 0x1B]) == [.character("a")])
        #expect(decoder.flush() == [.escape])
        #expect(!decoder.hasPending)
        #expect(decoder.flush() == [])
    }
}
