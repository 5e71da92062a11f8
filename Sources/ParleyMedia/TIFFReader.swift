/// The first IFD of a TIFF structure (an EXIF block), either byte order, every offset checked.
struct TIFFReader {
    private static let orientationTag = 0x0112
    private static let shortType = 3
    private let bytes: [UInt8]
    private let bigEndian: Bool
    private let firstIFD: Int

    init?(_ bytes: [UInt8]) {
        if bytes.matches("MM") {
            bigEndian = true
        } else if bytes.matches("II") {
            bigEndian = false
        } else {
            return nil
        }
        guard bytes.uint16(at: 2, bigEndian: bigEndian) == 42, let offset = bytes.uint32(at: 4, bigEndian: bigEndian)
        else { return nil }
        self.bytes = bytes
        firstIFD = offset
    }

    /// Tag 0x0112 of IFD0, a SHORT in 1...8.
    var orientation: Int? {
        guard let entries = bytes.uint16(at: firstIFD, bigEndian: bigEndian) else { return nil }
        for index in 0..<entries {
            let entry = firstIFD + 2 + index * 12
            guard let tag = bytes.uint16(at: entry, bigEndian: bigEndian),
                let type = bytes.uint16(at: entry + 2, bigEndian: bigEndian),
                let count = bytes.uint32(at: entry + 4, bigEndian: bigEndian)
            else { return nil }
            guard tag == Self.orientationTag else { continue }
            // A single SHORT sits in the first two bytes of the value field, in the file's byte order.
            guard type == Self.shortType, count >= 1, let value = bytes.uint16(at: entry + 8, bigEndian: bigEndian)
            else { return nil }
            return (1...8).contains(value) ? value : nil
        }
        return nil
    }
}
