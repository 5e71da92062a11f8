/// Removes what a picture says about where, when and with what it was taken, before it leaves the device.
///
/// Only whole metadata segments or chunks are dropped; the pixels' bytes are copied as they are, so a
/// cleaned picture decodes exactly as before (bar its EXIF orientation, which `orientation(_:)` reads
/// first). Bytes after the end of the picture (after JPEG's EOI or PNG's IEND) are dropped too: they are
/// where appended previews and editors' leftovers hide (a cropped screenshot's original pixels, once).
public enum PictureCleaner {
    /// APP1 (Exif, XMP: GPS lives there), APP3...APP12, APP13 (IPTC, Photoshop), APP15 and COM. Kept: APP0
    /// (JFIF), APP2 (ICC colour profile), APP14 (Adobe colour transform), which change how the pixels look.
    static let droppedJPEGMarkers: Set<UInt8> = Set([0xE1, 0xED, 0xEF, 0xFE]).union(0xE3...0xEC)
    /// EXIF, the three text chunks (comments, authors, software, sometimes locations) and the time it was saved.
    static let droppedPNGChunks: Set<String> = ["eXIf", "tEXt", "zTXt", "iTXt", "tIME"]

    /// The picture without its metadata; any other kind of file unchanged.
    public static func stripMetadata(_ bytes: [UInt8]) throws(MediaError) -> [UInt8] {
        if ContentSniffer.isJPEG(bytes) { return try stripJPEG(bytes) }
        if bytes.matches(PNGChunks.signature) { return try stripPNG(bytes) }
        return bytes
    }

    /// The EXIF orientation (1...8: how to turn the stored pixels to show them upright) of a JPEG, if its
    /// APP1 Exif segment states one; nil for anything else, however broken.
    public static func orientation(_ bytes: [UInt8]) -> Int? {
        guard ContentSniffer.isJPEG(bytes) else { return nil }
        let exifHeader: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]
        for segment in JPEGSegments.header(of: bytes) where segment.marker == 0xE1 {
            // A segment too short to hold the header is not Exif, whatever bytes follow it.
            guard segment.payload.count >= exifHeader.count, bytes.matches(exifHeader, at: segment.payload.lowerBound)
            else { continue }
            let tiff = Array(bytes[(segment.payload.lowerBound + exifHeader.count)..<segment.payload.upperBound])
            return TIFFReader(tiff)?.orientation
        }
        return nil
    }

    private static func stripJPEG(_ bytes: [UInt8]) throws(MediaError) -> [UInt8] {
        var cleaned = JPEGSegments.soi
        cleaned.reserveCapacity(bytes.count)
        var inScans = false
        for segment in try JPEGSegments.all(of: bytes) {
            if segment.marker == JPEGSegment.startOfScan { inScans = true }
            if segment.marker == JPEGSegment.endOfImage && !inScans {
                throw .malformedPicture("the JPEG ends (EOI) before its image data")
            }
            // From the first scan on, everything is the picture's own and copied unchanged.
            if !inScans && droppedJPEGMarkers.contains(segment.marker) { continue }
            cleaned += bytes[segment.range]
        }
        return cleaned
    }

    private static func stripPNG(_ bytes: [UInt8]) throws(MediaError) -> [UInt8] {
        var cleaned = PNGChunks.signature
        cleaned.reserveCapacity(bytes.count)
        for chunk in try PNGChunks.all(of: bytes) where !droppedPNGChunks.contains(chunk.type) {
            cleaned += bytes[chunk.range]
        }
        return cleaned
    }
}
