import Testing
@testable import ParleyMedia

/// The declared size of each picture format, from its header alone.
struct PictureInfoTests {
    @Test("a JPEG's size comes from its frame header, after any APPn and tables")
    func jpeg() throws {
        let plain = try Fixtures.jpeg(width: 123, height: 45)
        #expect(PictureInfo.size(of: plain) == PictureSize(width: 123, height: 45))
        let camera = Fixtures.inserting([Fixtures.exifAPP1(orientation: 6)], into: plain)
        #expect(PictureInfo.size(of: camera) == PictureSize(width: 123, height: 45))
    }

    @Test("DHT, JPG and DAC markers are not frames: a DHT-shaped C4 before the frame is skipped")
    func jpegNotFrames() throws {
        let plain = try Fixtures.jpeg(width: 64, height: 32)
        // A C4 (and C8, CC) segment whose payload would read as 9×9 if it were taken for a frame.
        let decoys = [0xC4, 0xC8, 0xCC].map { Fixtures.segment(UInt8($0), [8, 0, 9, 0, 9, 3]) }
        #expect(PictureInfo.size(of: Fixtures.inserting(decoys, into: plain)) == PictureSize(width: 64, height: 32))
    }

    @Test("a PNG's size is IHDR's width and height")
    func png() {
        let png = Fixtures.png(width: 7, height: 3, alpha: false) { _, _ in [0, 0, 0] }
        #expect(PictureInfo.size(of: png) == PictureSize(width: 7, height: 3))
    }

    @Test("a GIF's size is its logical screen's, little-endian")
    func gif() {
        let gif = Array("GIF89a".utf8) + [0x40, 0x01, 0xF0, 0x00, 0xF7, 0, 0]
        #expect(PictureInfo.size(of: gif) == PictureSize(width: 320, height: 240))
    }

    @Test("a WebP's size is read from its VP8, VP8L or VP8X header")
    func webp() {
        func riff(_ chunk: [UInt8]) -> [UInt8] { Array("RIFF".utf8) + [0x40, 0, 0, 0] + Array("WEBP".utf8) + chunk }
        // Lossy: frame tag, start code, 14-bit sides (here with scaling bits set above them).
        let lossy = riff(
            Array("VP8 ".utf8) + [0x30, 0, 0, 0] + [0x50, 0x02, 0x00, 0x9D, 0x01, 0x2A, 0x90, 0x41, 0x2D, 0x81])
        #expect(PictureInfo.size(of: lossy) == PictureSize(width: 400, height: 301))
        // Lossless: 2F, then (width - 1) | (height - 1) << 14 in little-endian bits.
        let bits = (400 - 1) | (301 - 1) << 14
        let lossless = riff(
            Array("VP8L".utf8) + [0x20, 0, 0, 0, 0x2F]
                + [UInt8(bits & 0xFF), UInt8(bits >> 8 & 0xFF), UInt8(bits >> 16 & 0xFF), UInt8(bits >> 24 & 0xFF)])
        #expect(PictureInfo.size(of: lossless) == PictureSize(width: 400, height: 301))
        // Extended: flags, then 24-bit (width - 1) and (height - 1).
        let extended = riff(
            Array("VP8X".utf8) + [10, 0, 0, 0] + [0x10, 0, 0, 0] + [0x3F, 0x1F, 0x00, 0x37, 0x04, 0x00])
        #expect(PictureInfo.size(of: extended) == PictureSize(width: 8000, height: 1080))
    }

    @Test("a side of 0 or over 100,000 is no size at all, and neither is a file that is no picture")
    func absurd() {
        func png(_ width: Int, _ height: Int) -> [UInt8] {
            PNGChunks.signature
                + Fixtures.chunk("IHDR", Fixtures.be32(width) + Fixtures.be32(height) + [8, 2, 0, 0, 0])
        }
        #expect(PictureInfo.size(of: png(100_000, 1)) == PictureSize(width: 100_000, height: 1))
        #expect(PictureInfo.size(of: png(0, 10)) == nil)
        #expect(PictureInfo.size(of: png(10, 100_001)) == nil)
        #expect(PictureInfo.size(of: png(0xFFFF_FFFF, 0xFFFF_FFFF)) == nil)
        #expect(PictureInfo.size(of: Array("GIF89a".utf8) + [0, 0, 5, 0]) == nil)
        #expect(PictureInfo.size(of: Array("%PDF-1.7".utf8)) == nil)
        #expect(PictureInfo.size(of: []) == nil)
    }
}
