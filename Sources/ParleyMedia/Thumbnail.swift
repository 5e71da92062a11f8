/// A small JPEG preview of a picture, sent inside the file's manifest so peers see it before fetching.
public enum Thumbnail {
    /// Pictures declaring more pixels are refused (`.pictureTooLarge`) before decoding: a PNG's pixels are
    /// decoded whole, 3 bytes each.
    public static let maximumPixels = 50_000_000
    /// The largest thumbnail, in bytes: it rides in the manifest.
    public static let maximumBytes = 8_000
    /// The largest `maxSide` accepted.
    public static let maximumSide = 1_024
    /// Tried in order until the encoding fits `maximumBytes`.
    static let qualities = [70, 55, 40, 25, 10]

    /// A JPEG of at most `maxSide` pixels on its longer side (never enlarged), the picture's aspect ratio
    /// kept and turned upright by `orientation` (EXIF 1...8; when nil, the one the JPEG's own EXIF states).
    /// nil for anything but PNG and JPEG, or when no quality fits `maximumBytes`.
    ///
    /// Pass the orientation read before `PictureCleaner.stripMetadata` when thumbnailing a cleaned picture.
    public static func make(
        from bytes: [UInt8], maxSide: Int = 96, orientation: Int? = nil
    ) throws(MediaError) -> [UInt8]? {
        guard (1...maximumSide).contains(maxSide) else { throw .invalidThumbnailSide(maxSide) }
        let decoded: RGBImage
        if ContentSniffer.isJPEG(bytes) {
            decoded = try JPEGCodec.decode(bytes, maximumPixels: maximumPixels) { fit($0, $1, maxSide: maxSide) }
        } else if bytes.matches(PNGChunks.signature) {
            decoded = try PNGDecoder.decode(bytes, maximumPixels: maximumPixels)
        } else {
            return nil
        }
        let (width, height) = fit(decoded.width, decoded.height, maxSide: maxSide)
        let small = decoded.downscaled(width: width, height: height)
            .oriented(orientation ?? PictureCleaner.orientation(bytes) ?? 1)
        for quality in qualities {
            let encoded = try JPEGCodec.encode(small, quality: quality)
            if encoded.count <= maximumBytes { return encoded }
        }
        return nil
    }

    /// The size with the longer side brought down to `maxSide` and the other in proportion (at least 1).
    static func fit(_ width: Int, _ height: Int, maxSide: Int) -> (width: Int, height: Int) {
        let longer = max(width, height)
        guard longer > maxSide else { return (width, height) }
        func scaled(_ side: Int) -> Int { max(1, (side * maxSide + longer / 2) / longer) }
        return (scaled(width), scaled(height))
    }
}
