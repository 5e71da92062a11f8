/// A picture's width and height in pixels, as its header declares them.
public struct PictureSize: Sendable, Hashable {
    public let width: Int
    public let height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

/// Reads a picture's declared size from its header, without decoding it.
public enum PictureInfo {
    /// Sides above this are taken for a hostile or broken header, not a picture.
    public static let maximumSide = 100_000

    /// The size of a PNG (IHDR), JPEG (its frame header), GIF (logical screen) or WebP (VP8, VP8L or VP8X
    /// header); nil for any other file, a header cut short, or a side of 0 or over `maximumSide`.
    public static func size(of bytes: [UInt8]) -> PictureSize? {
        guard let (width, height) = declaredSize(of: bytes), (1...maximumSide).contains(width),
            (1...maximumSide).contains(height)
        else { return nil }
        return PictureSize(width: width, height: height)
    }

    private static func declaredSize(of bytes: [UInt8]) -> (Int, Int)? {
        if bytes.matches(PNGChunks.signature) { return pngSize(bytes) }
        if ContentSniffer.isJPEG(bytes) { return jpegSize(bytes) }
        if bytes.matches("GIF87a") || bytes.matches("GIF89a") {
            guard let width = bytes.uint16(at: 6, bigEndian: false), let height = bytes.uint16(at: 8, bigEndian: false)
            else { return nil }
            return (width, height)
        }
        if bytes.matches("RIFF") && bytes.matches("WEBP", at: 8) { return webpSize(bytes) }
        return nil
    }

    /// IHDR must be the first chunk: its width and height are its first eight bytes.
    private static func pngSize(_ bytes: [UInt8]) -> (Int, Int)? {
        guard bytes.uint32(at: 8) == 13, bytes.matches("IHDR", at: 12), let width = bytes.uint32(at: 16),
            let height = bytes.uint32(at: 20)
        else { return nil }
        return (width, height)
    }

    /// The first frame header (SOFn): precision, then height and width.
    private static func jpegSize(_ bytes: [UInt8]) -> (Int, Int)? {
        guard let frame = JPEGSegments.header(of: bytes).first(where: \.isStartOfFrame),
            frame.payload.count >= 5, let height = bytes.uint16(at: frame.payload.lowerBound + 1),
            let width = bytes.uint16(at: frame.payload.lowerBound + 3)
        else { return nil }
        return (width, height)
    }

    /// The first chunk after the RIFF header says which of the three WebP formats it is.
    private static func webpSize(_ bytes: [UInt8]) -> (Int, Int)? {
        if bytes.matches("VP8 ", at: 12) {
            // Lossy: a 3-byte frame tag, the start code 9D 01 2A, then 14-bit width and height.
            guard bytes.matches([0x9D, 0x01, 0x2A], at: 23), let width = bytes.uint16(at: 26, bigEndian: false),
                let height = bytes.uint16(at: 28, bigEndian: false)
            else { return nil }
            return (width & 0x3FFF, height & 0x3FFF)
        }
        if bytes.matches("VP8L", at: 12) {
            // Lossless: the signature byte 2F, then width - 1 and height - 1 in 14 bits each.
            guard bytes.byte(at: 20) == 0x2F, let bits = bytes.uint32(at: 21, bigEndian: false) else { return nil }
            return ((bits & 0x3FFF) + 1, (bits >> 14 & 0x3FFF) + 1)
        }
        if bytes.matches("VP8X", at: 12) {
            // Extended: 4 bytes of flags, then canvas width - 1 and height - 1 in 24 bits each.
            guard let width = bytes.uint24LE(at: 24), let height = bytes.uint24LE(at: 27) else { return nil }
            return (width + 1, height + 1)
        }
        return nil
    }
}
