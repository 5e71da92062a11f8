/// A file's type from its first bytes, never from its name or a sender's claim.
///
/// A browser or viewer trusts the type it is given, so the answer is one of a fixed list, none of them
/// scriptable: HTML, SVG or XML text comes out as text/plain, and what is not recognised as
/// application/octet-stream. The name only refines text to Markdown or CSV, which are still plain text.
public enum ContentSniffer {
    /// How much of the file is looked at; more is ignored.
    public static let prefixLength = 512

    public static func type(of prefix: [UInt8], name: String) -> MediaType {
        let head = prefix.count > prefixLength ? Array(prefix[..<prefixLength]) : prefix
        if let binary = binaryType(head) { return binary }
        guard isText(head, mayBeCut: prefix.count >= prefixLength) else { return .octetStream }
        switch fileExtension(name) {
        case "md", "markdown": return .markdown
        case "csv": return .csv
        default: return .plainText
        }
    }

    /// SOI and the FF of the next marker: FF D8 alone also starts some non-JPEG files.
    static func isJPEG(_ bytes: [UInt8]) -> Bool { bytes.matches([0xFF, 0xD8, 0xFF]) }

    private static func binaryType(_ head: [UInt8]) -> MediaType? {
        if head.matches(PNGChunks.signature) { return .png }
        if isJPEG(head) { return .jpeg }
        if head.matches("GIF87a") || head.matches("GIF89a") { return .gif }
        if head.matches("RIFF") && head.matches("WEBP", at: 8) { return .webp }
        if head.matches("%PDF-") { return .pdf }
        // Local file header, empty archive, spanned archive.
        if head.matches([0x50, 0x4B, 0x03, 0x04]) || head.matches([0x50, 0x4B, 0x05, 0x06])
            || head.matches([0x50, 0x4B, 0x07, 0x08])
        {
            return .zip
        }
        if head.matches([0x1F, 0x8B, 0x08]) { return .gzip }
        if head.matches("OggS") { return .ogg }
        if head.matches("ID3") || isMPEGAudioFrame(head) { return .mpegAudio }
        if head.matches("ftyp", at: 4) { return isoMediaType(head) }
        return nil
    }

    /// An MPEG audio frame header of layer III (MP3) or II: 11 sync bits, then no reserved version, bit rate
    /// or sample rate. Layer I is left out: its FF FE and FF FF are also UTF-16's byte order marks, and
    /// layer 0 is AAC's ADTS.
    private static func isMPEGAudioFrame(_ head: [UInt8]) -> Bool {
        guard head.count >= 3, head[0] == 0xFF, head[1] & 0xE0 == 0xE0 else { return false }
        let version = head[1] >> 3 & 0b11, layer = head[1] >> 1 & 0b11
        let bitRate = head[2] >> 4, sampleRate = head[2] >> 2 & 0b11
        return version != 0b01 && (layer == 0b01 || layer == 0b10) && bitRate != 0 && bitRate != 0b1111
            && sampleRate != 0b11
    }

    /// An ISO base media file (`ftyp` box): MP4 unless its major brand says it is a still picture (HEIF,
    /// AVIF), which Parley cannot show and a browser would not play.
    private static func isoMediaType(_ head: [UInt8]) -> MediaType? {
        guard let boxSize = head.uint32(at: 0), boxSize >= 8 else { return nil }
        let stillBrands = ["heic", "heix", "heim", "heis", "mif1", "msf1", "avif", "avis"]
        if stillBrands.contains(where: { head.matches($0, at: 8) }) { return .octetStream }
        return .mp4
    }

    /// Valid UTF-8 without NUL bytes. When `mayBeCut` (the prefix is only the start of the file), a
    /// multi-byte character cut short by the end of the prefix does not count against it.
    private static func isText(_ head: [UInt8], mayBeCut: Bool) -> Bool {
        guard !head.contains(0) else { return false }
        let end = mayBeCut ? head.count - cutCharacterLength(head) : head.count
        return String(validating: head[..<end], as: UTF8.self) != nil
    }

    /// How many bytes at the end of `head` are the start of a character that needs more bytes than follow
    /// it: a lead byte and fewer continuation bytes than it announces. 0 when the end is whole.
    private static func cutCharacterLength(_ head: [UInt8]) -> Int {
        for length in 1...3 where length <= head.count {
            let byte = head[head.count - length]
            guard byte & 0xC0 == 0x80 else {
                // C2...F4 are the only lead bytes; anything else is the validator's to refuse.
                guard (0xC2...0xF4).contains(byte) else { return 0 }
                let needed = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2
                return needed > length ? length : 0
            }
        }
        return 0
    }

    private static func fileExtension(_ name: String) -> String {
        guard let dot = name.lastIndex(of: "."), !name.hasSuffix(".") else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }
}
