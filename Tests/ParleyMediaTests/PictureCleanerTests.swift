import Testing
@testable import ParleyMedia

/// Metadata goes, the picture stays byte for byte.
struct PictureCleanerTests {
    @Test("stripping a camera JPEG removes its Exif GPS, XMP, IPTC and comments and leaves libturbojpeg's file")
    func jpegMetadata() throws {
        let plain = try Fixtures.jpeg(width: 640, height: 480)
        let exif = Fixtures.exifAPP1(orientation: 6)
        let xmp = Fixtures.xmpAPP1(#"<rdf:Description exif:GPSLatitude="48,51.496N"/>"#)
        let iptc = Fixtures.segment(0xED, Array("Photoshop 3.0\u{0}8BIM Paris".utf8))
        let comment = Fixtures.segment(0xFE, Array("shot at home, 12 Rue Example".utf8))
        let maker = Fixtures.segment(0xEA, Array("serial 12345".utf8))
        let camera = Fixtures.inserting([exif, xmp, iptc, comment, maker], into: plain)
        #expect(Fixtures.contains(camera, Fixtures.latitudeBigEndian))

        let stripped = try PictureCleaner.stripMetadata(camera)
        #expect(stripped == plain)
        #expect(!Fixtures.contains(stripped, Fixtures.latitudeBigEndian))
        #expect(!Fixtures.contains(stripped, Array("Exif".utf8)))
        #expect(!Fixtures.contains(stripped, Array("GPSLatitude".utf8)))
        #expect(!Fixtures.contains(stripped, Array("Rue Example".utf8)))
        #expect(PictureInfo.size(of: stripped) == PictureSize(width: 640, height: 480))
        let decoded = try JPEGCodec.decode(stripped, maximumPixels: Thumbnail.maximumPixels) { ($0, $1) }
        #expect(decoded == (try JPEGCodec.decode(plain, maximumPixels: Thumbnail.maximumPixels) { ($0, $1) }))
        #expect(decoded.width == 640 && decoded.height == 480)
    }

    @Test("JFIF, the ICC profile and Adobe's colour segment stay, in their place")
    func jpegKeptSegments() throws {
        let plain = try Fixtures.jpeg(width: 32, height: 16)
        let icc = Fixtures.segment(0xE2, Array("ICC_PROFILE".utf8) + [0, 1, 1] + [UInt8](repeating: 7, count: 40))
        let adobe = Fixtures.segment(0xEE, Array("Adobe".utf8) + [0, 100, 0, 0, 0, 0, 1])
        let exif = Fixtures.exifAPP1(orientation: 1)
        // After libturbojpeg's 18-byte JFIF APP0.
        let jfifEnd = 2 + 18
        let kept = Fixtures.inserting([icc, adobe], after: jfifEnd, into: plain)
        let camera = Fixtures.inserting([icc, exif, adobe], after: jfifEnd, into: plain)
        #expect(try PictureCleaner.stripMetadata(camera) == kept)
        #expect(try PictureCleaner.stripMetadata(kept) == kept)
    }

    @Test("bytes after a JPEG's EOI and a PNG's IEND are dropped")
    func trailingBytes() throws {
        let jpeg = try Fixtures.jpeg(width: 16, height: 16)
        let png = Fixtures.png(width: 2, height: 2, alpha: false) { x, y in [UInt8(x * 100), UInt8(y * 100), 0] }
        let hidden = Array("the uncropped original".utf8)
        #expect(try PictureCleaner.stripMetadata(jpeg + hidden) == jpeg)
        #expect(try PictureCleaner.stripMetadata(png + hidden) == png)
    }

    @Test("stripping a PNG removes eXIf, tEXt, zTXt, iTXt and tIME and keeps the other chunks with their CRCs")
    func pngMetadata() throws {
        let plain = Fixtures.png(width: 3, height: 2, alpha: true) { x, y in [UInt8(x * 80), UInt8(y * 80), 9, 255] }
        let gamma = Fixtures.chunk("gAMA", Fixtures.be32(45_455))
        let tiff = Array(Fixtures.exifAPP1(orientation: 6).dropFirst(4 + 6))
        let metadata = [
            Fixtures.chunk("eXIf", tiff),
            Fixtures.chunk("tEXt", Array("Comment\u{0}GPS 48.8582,2.2945".utf8)),
            Fixtures.chunk("zTXt", Array("Author\u{0}\u{0}".utf8) + [0x78, 0x01, 0x01, 0, 0, 0xFF, 0xFF, 0, 0, 0, 1]),
            Fixtures.chunk("iTXt", Array("Location\u{0}\u{0}\u{0}fr\u{0}Lieu\u{0}Paris".utf8)),
            Fixtures.chunk("tIME", [0x07, 0xE8, 6, 1, 12, 30, 0]),
        ]
        let camera = Fixtures.inserting(chunks: [gamma] + metadata, into: plain)
        let stripped = try PictureCleaner.stripMetadata(camera)
        #expect(stripped == Fixtures.inserting(chunks: [gamma], into: plain))
        #expect(!Fixtures.contains(stripped, Fixtures.latitudeBigEndian))
        #expect(!Fixtures.contains(stripped, Array("48.8582".utf8)))
        let decoded = try PNGDecoder.decode(stripped, maximumPixels: Thumbnail.maximumPixels)
        #expect(decoded.width == 3 && decoded.height == 2)
    }

    @Test("a well-known 1×1 PNG from the wild is kept byte for byte")
    func knownPNG() throws {
        #expect(try PictureCleaner.stripMetadata(Self.onePixelPNG) == Self.onePixelPNG)
        #expect(PictureInfo.size(of: Self.onePixelPNG) == PictureSize(width: 1, height: 1))
        // Its one pixel: blue at half opacity, over white. libpng composites in linear light, where half of
        // white is sRGB 186, not 128.
        let decoded = try PNGDecoder.decode(Self.onePixelPNG, maximumPixels: 1)
        #expect(decoded.pixels == [186, 186, 255])
    }

    /// The 1×1 RGBA PNG of countless data: URLs (zlib-compressed IDAT, Sub filter), CRCs as published.
    static let onePixelPNG: [UInt8] = hexBytes(
        "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154"
            + "78da636460f85f0f0002870180eb47ba920000000049454e44ae426082")

    static func hexBytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count, by: 2).map {
            UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)!
        }
    }

    @Test("the test's CRC-32 is PNG's: IEND's CRC is AE426082")
    func crcVector() {
        #expect(Fixtures.crc32(Array("IEND".utf8)) == 0xAE42_6082)
        #expect(Fixtures.chunk("IEND", []) == Array(Self.onePixelPNG.suffix(12)))
    }

    @Test("other files are returned unchanged")
    func otherFiles() throws {
        for bytes in [Array("%PDF-1.7 …".utf8), Array("GIF89a".utf8) + [1, 0, 1, 0], [], [0xFF, 0xD8]] {
            #expect(try PictureCleaner.stripMetadata(bytes) == bytes)
        }
    }

    @Test("a broken JPEG or PNG structure is malformed, saying where")
    func malformed() throws {
        let jpeg = try Fixtures.jpeg(width: 16, height: 16)
        let png = Fixtures.png(width: 1, height: 1, alpha: false) { _, _ in [1, 2, 3] }
        var longSegment = jpeg
        longSegment[4...5] = [0xFF, 0xF0] // APP0 claims 65,520 bytes
        let cases: [[UInt8]] = [
            longSegment,
            Array(jpeg[..<20]), // ends before any scan
            [0xFF, 0xD8, 0xFF, 0xD9], // EOI with no picture
            [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x01], // a length below 2
            Array(jpeg[..<20]) + [0x12, 0x34], // no marker where one must be
            Array(png.dropLast(12)), // no IEND
            Array(png[..<40]), // IDAT cut short
            PNGChunks.signature + Fixtures.chunk("IDAT", [1]) + Fixtures.chunk("IEND", []), // IHDR not first
            Array(png[..<12]) + Array("IH!R".utf8) + Array(png[16...]),
        ]
        for bytes in cases {
            #expect {
                try PictureCleaner.stripMetadata(bytes)
            } throws: { error in
                guard case .malformedPicture(let reason) = error as? MediaError else { return false }
                return !reason.isEmpty && "\(error)".hasPrefix("malformed picture: ")
            }
        }
    }

    @Test("the EXIF orientation is read in either byte order, before it is stripped")
    func orientation() throws {
        let plain = try Fixtures.jpeg(width: 32, height: 24)
        for order in [true, false] {
            for value in 1...8 {
                let camera = Fixtures.inserting([Fixtures.exifAPP1(orientation: value, bigEndian: order)], into: plain)
                #expect(PictureCleaner.orientation(camera) == value)
                #expect(PictureCleaner.orientation(try PictureCleaner.stripMetadata(camera)) == nil)
            }
        }
        #expect(PictureCleaner.orientation(plain) == nil)
        #expect(PictureCleaner.orientation(Fixtures.inserting([Fixtures.exifAPP1(orientation: 9)], into: plain)) == nil)
        #expect(PictureCleaner.orientation(Fixtures.inserting([Fixtures.xmpAPP1("<x/>")], into: plain)) == nil)
    }
}
