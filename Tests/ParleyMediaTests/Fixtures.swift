@testable import ParleyMedia

/// Pictures built in the test, byte by byte or through the module's own encoder, so each test knows exactly
/// what is in them.
enum Fixtures {
    // MARK: JPEG

    /// A `width` × `height` JPEG of a gradient, left half reddish and right half bluish, as libturbojpeg writes it
    /// (SOI, JFIF APP0, tables, frame, one scan, EOI).
    static func jpeg(width: Int, height: Int, quality: Int = 90) throws -> [UInt8] {
        try JPEGCodec.encode(halves(width: width, height: height), quality: quality)
    }

    static func halves(width: Int, height: Int) -> RGBImage {
        var pixels: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let shade = UInt8(truncatingIfNeeded: (x + y) % 32)
                pixels += x < width / 2 ? [220 + shade, 30, 30] : [30, 30, 220 + shade]
            }
        }
        return RGBImage(width: width, height: height, pixels: pixels)
    }

    /// `jpeg` with `segments` inserted right after SOI, where cameras put their APP1.
    static func inserting(_ segments: [[UInt8]], after offset: Int = 2, into jpeg: [UInt8]) -> [UInt8] {
        Array(jpeg[..<offset]) + segments.joined() + Array(jpeg[offset...])
    }

    static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    /// 48°51'29.76" N: GPSLatitude's three RATIONALs (48/1, 51/1, 2976/100), big-endian, as a camera writes them.
    static let latitudeBigEndian: [UInt8] = [
        0, 0, 0, 48, 0, 0, 0, 1, 0, 0, 0, 51, 0, 0, 0, 1, 0, 0, 0x0B, 0xA0, 0, 0, 0, 100,
    ]

    /// An APP1 Exif segment: IFD0 holding Orientation (a SHORT) and a pointer to a GPS IFD holding
    /// GPSLatitudeRef "N" and GPSLatitude 48°51'29.76".
    static func exifAPP1(orientation: Int, bigEndian: Bool = true) -> [UInt8] {
        var tiff = TIFFWriter(bigEndian: bigEndian)
        tiff.bytes += bigEndian ? Array("MM".utf8) : Array("II".utf8)
        tiff.u16(42)
        tiff.u32(8)
        // IFD0 at 8: two entries, then the next IFD's offset (none).
        tiff.u16(2)
        tiff.entry(tag: 0x0112, type: 3, count: 1) {
            $0.u16(orientation); $0.u16(0)
        }
        let gpsIFD = 8 + 2 + 2 * 12 + 4
        tiff.entry(tag: 0x8825, type: 4, count: 1) { $0.u32(gpsIFD) }
        tiff.u32(0)
        // The GPS IFD: two entries, then the latitude's rationals.
        tiff.u16(2)
        tiff.entry(tag: 0x0001, type: 2, count: 2) { $0.bytes += [0x4E, 0, 0, 0] }
        tiff.entry(tag: 0x0002, type: 5, count: 3) { $0.u32(gpsIFD + 2 + 2 * 12 + 4) }
        tiff.u32(0)
        for value in [48, 1, 51, 1, 2976, 100] { tiff.u32(value) }
        return segment(0xE1, Array("Exif".utf8) + [0, 0] + tiff.bytes)
    }

    static func xmpAPP1(_ text: String) -> [UInt8] {
        segment(0xE1, Array("http://ns.adobe.com/xap/1.0/".utf8) + [0] + Array(text.utf8))
    }

    struct TIFFWriter {
        let bigEndian: Bool
        var bytes: [UInt8] = []

        mutating func u16(_ value: Int) {
            let pair = [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
            bytes += bigEndian ? pair : pair.reversed()
        }

        mutating func u32(_ value: Int) {
            let quad = [
                UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF),
            ]
            bytes += bigEndian ? quad : quad.reversed()
        }

        /// A 12-byte IFD entry; `value` writes its 4-byte value field.
        mutating func entry(tag: Int, type: Int, count: Int, value: (inout TIFFWriter) -> Void) {
            u16(tag)
            u16(type)
            u32(count)
            value(&self)
        }
    }

    // MARK: PNG

    /// A PNG of 8-bit RGB (colour type 2) or RGBA (6) rows, its IDAT a zlib stream of stored (uncompressed)
    /// deflate blocks, every CRC and the Adler-32 computed.
    static func png(width: Int, height: Int, alpha: Bool, pixel: (Int, Int) -> [UInt8]) -> [UInt8] {
        var raw: [UInt8] = []
        for y in 0..<height {
            raw.append(0) // filter type None
            for x in 0..<width { raw += pixel(x, y) }
        }
        var ihdr = be32(width) + be32(height)
        ihdr += [8, alpha ? 6 : 2, 0, 0, 0]
        return PNGChunks.signature + chunk("IHDR", ihdr) + chunk("IDAT", zlibStored(raw)) + chunk("IEND", [])
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return be32(data.count) + typed + be32(Int(crc32(typed)))
    }

    /// `png` with `chunks` inserted after IHDR (8 bytes of signature, then 25 of IHDR).
    static func inserting(chunks: [[UInt8]], into png: [UInt8]) -> [UInt8] {
        Array(png[..<33]) + chunks.joined() + Array(png[33...])
    }

    static func be32(_ value: Int) -> [UInt8] {
        [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let length = min(65_535, data.count - offset)
            let final: UInt8 = offset + length == data.count ? 1 : 0
            out += [final, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8 & 0xFF)]
            out += data[offset..<(offset + length)]
            offset += length
        } while offset < data.count
        return out + be32(Int(adler32(data)))
    }

    /// CRC-32 (ISO-HDLC, reflected polynomial EDB88320), as PNG chunks carry it.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? crc >> 1 ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var (a, b): (UInt32, UInt32) = (1, 0)
        for byte in bytes {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return b << 16 | a
    }

    // MARK: Garbling

    /// SplitMix64: the same garbled inputs on every run.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ z >> 30) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ z >> 27) &* 0x94D0_49BB_1331_11EB
            return z ^ z >> 31
        }
    }

    /// Whether `bytes` holds `needle` anywhere.
    static func contains(_ bytes: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= bytes.count else { return false }
        return (0...(bytes.count - needle.count)).contains { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
