import Testing
@testable import ParleyMedia

/// Pictures from peers are hostile: every prefix of a real file, and garbled copies of it, go through every
/// function, which must answer or throw, never trap.
struct HostileInputTests {
    static func samples() throws -> [[UInt8]] {
        let jpeg = Fixtures.inserting(
            [Fixtures.exifAPP1(orientation: 6), Fixtures.exifAPP1(orientation: 3, bigEndian: false)],
            into: try Fixtures.jpeg(width: 24, height: 16))
        let png = Fixtures.inserting(
            chunks: [Fixtures.chunk("tEXt", Array("a\u{0}b".utf8))],
            into: Fixtures.png(width: 5, height: 4, alpha: true) { x, y in [UInt8(x), UInt8(y), 0, 128] })
        let gif = Array("GIF89a".utf8) + [5, 0, 4, 0, 0xF7, 0, 0]
        let webp =
            Array("RIFF".utf8) + [0x40, 0, 0, 0] + Array("WEBPVP8X".utf8) + [10, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 3, 0, 0]
        return [jpeg, png, gif, webp, PictureCleanerTests.onePixelPNG]
    }

    static func everyFunction(_ bytes: [UInt8]) {
        _ = ContentSniffer.type(of: bytes, name: "x.jpg")
        _ = try? PictureCleaner.stripMetadata(bytes)
        _ = PictureCleaner.orientation(bytes)
        if let size = PictureInfo.size(of: bytes) { #expect(size.width >= 1 && size.height >= 1) }
        _ = try? Thumbnail.make(from: bytes, maxSide: 8)
    }

    @Test("every prefix of a valid JPEG, PNG, GIF and WebP is handled")
    func prefixes() throws {
        for sample in try Self.samples() {
            for length in 0...sample.count { Self.everyFunction(Array(sample[..<length])) }
        }
    }

    @Test("a cut JPEG or PNG never strips to a different picture: it throws or keeps what it had")
    func cutStripping() throws {
        let jpeg = try Fixtures.jpeg(width: 24, height: 16)
        for length in 0..<jpeg.count {
            let cut = Array(jpeg[..<length])
            if let stripped = try? PictureCleaner.stripMetadata(cut) { #expect(stripped == cut || length < 3) }
        }
    }

    @Test("garbled copies (random bytes overwritten, lengths and markers included) are handled")
    func garbled() throws {
        var generator = Fixtures.SeededGenerator(state: 37)
        for sample in try Self.samples() {
            for _ in 0..<300 {
                var bytes = sample
                for _ in 0..<Int.random(in: 1...6, using: &generator) {
                    bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(
                        in: 0...255, using: &generator)
                }
                Self.everyFunction(bytes)
            }
        }
    }

    @Test("random bytes behind each format's magic are handled")
    func randomAfterMagic() {
        var generator = Fixtures.SeededGenerator(state: 2024)
        let magics: [[UInt8]] = [
            [0xFF, 0xD8, 0xFF], PNGChunks.signature, Array("GIF89a".utf8),
            Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8L".utf8),
            [0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x40] + Array("Exif".utf8) + [0, 0] + Array("MM".utf8) + [0, 42],
        ]
        for magic in magics {
            for _ in 0..<300 {
                let tail = (0..<Int.random(in: 0...200, using: &generator)).map { _ in
                    UInt8.random(in: 0...255, using: &generator)
                }
                Self.everyFunction(magic + tail)
            }
        }
    }

    @Test("an IFD claiming 65,535 entries or offsets past the end reads as no orientation")
    func hostileTIFF() throws {
        let plain = try Fixtures.jpeg(width: 8, height: 8)
        let tiffs: [[UInt8]] = [
            Array("MM".utf8) + [0, 42, 0, 0, 0, 8, 0xFF, 0xFF, 0x01, 0x12],
            Array("II".utf8) + [42, 0, 0xFF, 0xFF, 0xFF, 0xFF],
            Array("MM".utf8) + [0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0],
        ]
        for tiff in tiffs {
            let camera = Fixtures.inserting([Fixtures.segment(0xE1, Array("Exif".utf8) + [0, 0] + tiff)], into: plain)
            #expect(PictureCleaner.orientation(camera) == nil)
        }
    }
}
