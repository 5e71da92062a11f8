import Testing
@testable import ParleyMedia

/// Thumbnails: small JPEGs, aspect kept, upright, within the byte budget; huge pictures refused unread.
struct ThumbnailTests {
    func decoded(_ jpeg: [UInt8]) throws -> RGBImage {
        try JPEGCodec.decode(jpeg, maximumPixels: Thumbnail.maximumPixels) { ($0, $1) }
    }

    @Test("a 640×480 JPEG makes a 96×72 JPEG thumbnail of at most 8,000 bytes")
    func jpeg() throws {
        let thumbnail = try #require(try Thumbnail.make(from: Fixtures.jpeg(width: 640, height: 480)))
        #expect(ContentSniffer.type(of: thumbnail, name: "") == .jpeg)
        #expect(PictureInfo.size(of: thumbnail) == PictureSize(width: 96, height: 72))
        #expect(thumbnail.count <= Thumbnail.maximumBytes)
        // Still reddish on the left and bluish on the right.
        let image = try decoded(thumbnail)
        let (left, right) = ((36 * 96 + 10) * 3, (36 * 96 + 85) * 3)
        #expect(image.pixels[left] > 150 && image.pixels[left + 2] < 100)
        #expect(image.pixels[right + 2] > 150 && image.pixels[right] < 100)
    }

    @Test("the longer side is brought to maxSide, a tall or small picture keeps its shape and is never enlarged")
    func sizes() throws {
        let tall = try #require(try Thumbnail.make(from: Fixtures.jpeg(width: 300, height: 1000)))
        #expect(PictureInfo.size(of: tall) == PictureSize(width: 29, height: 96))
        let wide = try #require(try Thumbnail.make(from: Fixtures.jpeg(width: 1000, height: 3), maxSide: 200))
        #expect(PictureInfo.size(of: wide) == PictureSize(width: 200, height: 1))
        let small = try #require(try Thumbnail.make(from: Fixtures.jpeg(width: 40, height: 30)))
        #expect(PictureInfo.size(of: small) == PictureSize(width: 40, height: 30))
        #expect(throws: MediaError.invalidThumbnailSide(0)) { try Thumbnail.make(from: [], maxSide: 0) }
    }

    @Test("a JPEG with EXIF orientation 6 gets an upright thumbnail, also from its stripped copy given the orientation")
    func orientation() throws {
        // Stored sideways: left half red, right half blue; turned 90° clockwise, red is on top.
        let camera = Fixtures.inserting(
            [Fixtures.exifAPP1(orientation: 6)], into: try Fixtures.jpeg(width: 640, height: 480))
        let stripped = try PictureCleaner.stripMetadata(camera)
        let fromCamera = try #require(try Thumbnail.make(from: camera))
        let fromStripped = try #require(
            try Thumbnail.make(from: stripped, orientation: PictureCleaner.orientation(camera)))
        #expect(fromCamera == fromStripped)
        #expect(PictureInfo.size(of: fromCamera) == PictureSize(width: 72, height: 96))
        let image = try decoded(fromCamera)
        let (top, bottom) = ((10 * 72 + 36) * 3, (85 * 72 + 36) * 3)
        #expect(image.pixels[top] > 150 && image.pixels[top + 2] < 100)
        #expect(image.pixels[bottom + 2] > 150 && image.pixels[bottom] < 100)
        // Without it, the stripped copy's thumbnail is as stored.
        let sideways = try #require(try Thumbnail.make(from: stripped))
        #expect(PictureInfo.size(of: sideways) == PictureSize(width: 96, height: 72))
    }

    @Test("each EXIF orientation mirrors or turns the pixels as the EXIF specification draws it")
    func orientations() {
        // a b c
        // d e f
        let source = RGBImage(width: 3, height: 2, pixels: (1...6).flatMap { [UInt8($0), 0, 0] })
        let expected: [Int: (Int, [UInt8])] = [
            1: (3, [1, 2, 3, 4, 5, 6]), 2: (3, [3, 2, 1, 6, 5, 4]), 3: (3, [6, 5, 4, 3, 2, 1]),
            4: (3, [4, 5, 6, 1, 2, 3]), 5: (2, [1, 4, 2, 5, 3, 6]), 6: (2, [4, 1, 5, 2, 6, 3]),
            7: (2, [6, 3, 5, 2, 4, 1]), 8: (2, [3, 6, 2, 5, 1, 4]),
        ]
        for (orientation, (width, reds)) in expected {
            let turned = source.oriented(orientation)
            #expect(turned.width == width && turned.width * turned.height == 6, "orientation \(orientation)")
            #expect(stride(from: 0, to: 18, by: 3).map { turned.pixels[$0] } == reds, "orientation \(orientation)")
        }
    }

    @Test("a PNG with transparency is composited on white")
    func pngWithAlpha() throws {
        // 200×100: a transparent left half, an opaque black right half.
        let png = Fixtures.png(width: 200, height: 100, alpha: true) { x, _ in x < 100 ? [0, 0, 0, 0] : [0, 0, 0, 255] }
        let thumbnail = try #require(try Thumbnail.make(from: png))
        #expect(PictureInfo.size(of: thumbnail) == PictureSize(width: 96, height: 48))
        let image = try decoded(thumbnail)
        let (left, right) = ((24 * 96 + 10) * 3, (24 * 96 + 85) * 3)
        #expect(image.pixels[left...(left + 2)].allSatisfy { $0 > 240 })
        #expect(image.pixels[right...(right + 2)].allSatisfy { $0 < 15 })
    }

    @Test("noise that does not fit 8,000 bytes at quality 70 is encoded at a lower one; at 300 pixels none fits")
    func budget() throws {
        var generator = Fixtures.SeededGenerator(state: 7)
        func noise(_ side: Int) throws -> [UInt8] {
            let pixels = (0..<side * side * 3).map { _ in UInt8.random(in: 0...255, using: &generator) }
            return try JPEGCodec.encode(RGBImage(width: side, height: side, pixels: pixels), quality: 95)
        }
        let picture = try noise(128)
        let small = try decoded(picture)
        #expect(try JPEGCodec.encode(small, quality: Thumbnail.qualities[0]).count > Thumbnail.maximumBytes)
        let thumbnail = try #require(try Thumbnail.make(from: picture, maxSide: 128))
        #expect(thumbnail.count <= Thumbnail.maximumBytes)
        #expect(PictureInfo.size(of: thumbnail) == PictureSize(width: 128, height: 128))
        #expect(try Thumbnail.make(from: try noise(300), maxSide: 300) == nil)
    }

    @Test("a PNG declaring 60000×60000 pixels is refused as too large before decoding")
    func hugePNG() {
        let ihdr = Fixtures.be32(60_000) + Fixtures.be32(60_000) + [8, 2, 0, 0, 0]
        let png =
            PNGChunks.signature + Fixtures.chunk("IHDR", ihdr)
            + Fixtures.chunk("IDAT", Fixtures.zlibStored([0, 0, 0, 0])) + Fixtures.chunk("IEND", [])
        #expect(PictureInfo.size(of: png) == PictureSize(width: 60_000, height: 60_000))
        #expect(throws: MediaError.pictureTooLarge(width: 60_000, height: 60_000)) { try Thumbnail.make(from: png) }
    }

    @Test("a JPEG whose frame header declares 60000×60000 pixels is refused as too large before decoding")
    func hugeJPEG() throws {
        var jpeg = try Fixtures.jpeg(width: 16, height: 16)
        let frame = try #require(JPEGSegments.header(of: jpeg).first { $0.isStartOfFrame })
        jpeg[(frame.payload.lowerBound + 1)...(frame.payload.lowerBound + 4)] = [0xEA, 0x60, 0xEA, 0x60]
        #expect(throws: MediaError.pictureTooLarge(width: 60_000, height: 60_000)) { try Thumbnail.make(from: jpeg) }
        #expect("\(MediaError.pictureTooLarge(width: 60_000, height: 60_000))".contains("50 megapixels"))
    }

    @Test("other files have no thumbnail")
    func otherFiles() throws {
        #expect(try Thumbnail.make(from: Array("GIF89a".utf8) + [1, 0, 1, 0]) == nil)
        #expect(try Thumbnail.make(from: Array("hello".utf8)) == nil)
        #expect(try Thumbnail.make(from: []) == nil)
    }
}
