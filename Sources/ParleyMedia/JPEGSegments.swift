/// One piece of a JPEG as it lies in the file: a marker segment, a standalone marker, or a scan (its SOS
/// segment and the entropy-coded data after it, up to the next marker).
struct JPEGSegment: Equatable {
    let marker: UInt8
    /// The whole piece, from any fill bytes before its marker to the byte before the next marker.
    let range: Range<Int>
    /// The bytes after the length field (for a scan, its header only); empty for a standalone marker.
    let payload: Range<Int>

    static let startOfScan: UInt8 = 0xDA
    static let endOfImage: UInt8 = 0xD9

    /// SOF0...SOF15, which give the picture's size: C4 (DHT), C8 (JPG) and CC (DAC) share the range but are not frames.
    var isStartOfFrame: Bool { (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker) }
}

/// Walks a JPEG's pieces in order, every length checked against the bytes: a broken structure throws, and
/// nothing is read outside `bytes`.
struct JPEGSegments {
    static let soi: [UInt8] = [0xFF, 0xD8]
    private let bytes: [UInt8]
    private var position = 2
    private var finished = false
    private var sawScan = false

    init(_ bytes: [UInt8]) throws(MediaError) {
        guard bytes.matches(Self.soi) else { throw .malformedPicture("a JPEG starts with FF D8") }
        self.bytes = bytes
    }

    /// Every piece up to and including EOI, or up to the end of a file cut short inside a scan.
    static func all(of bytes: [UInt8]) throws(MediaError) -> [JPEGSegment] {
        var walk = try JPEGSegments(bytes)
        var pieces: [JPEGSegment] = []
        while let piece = try walk.nextPiece() { pieces.append(piece) }
        return pieces
    }

    /// The pieces before the first scan (where the metadata, tables and frame header live); stops at the
    /// first error, for the readers that answer nil rather than throw.
    static func header(of bytes: [UInt8]) -> [JPEGSegment] {
        guard var walk = try? JPEGSegments(bytes) else { return [] }
        var pieces: [JPEGSegment] = []
        while let piece = try? walk.nextPiece(), piece.marker != JPEGSegment.startOfScan { pieces.append(piece) }
        return pieces
    }

    mutating func nextPiece() throws(MediaError) -> JPEGSegment? {
        guard !finished else { return nil }
        guard position < bytes.count else {
            finished = true
            // Cut short in the entropy-coded data, a decoder still shows what arrived; before it, nothing.
            if sawScan { return nil }
            throw .malformedPicture("the JPEG ends before its image data")
        }
        let start = position
        guard bytes[position] == 0xFF else {
            throw .malformedPicture("no marker at offset \(position) (byte \(hex(bytes[position])))")
        }
        while position < bytes.count, bytes[position] == 0xFF { position += 1 }
        guard let marker = bytes.byte(at: position) else { throw .malformedPicture("the JPEG ends inside a marker") }
        position += 1
        switch marker {
        case 0x00, 0xD8:
            throw .malformedPicture("marker \(hex(marker)) at offset \(position - 1) is not allowed here")
        case JPEGSegment.endOfImage:
            finished = true
            return JPEGSegment(marker: marker, range: start..<position, payload: position..<position)
        case 0x01, 0xD0...0xD7:
            return JPEGSegment(marker: marker, range: start..<position, payload: position..<position)
        default:
            guard let length = bytes.uint16(at: position), length >= 2 else {
                throw .malformedPicture("segment \(hex(marker)) at offset \(start) has no valid length")
            }
            let payload = (position + 2)..<(position + length)
            guard payload.upperBound <= bytes.count else {
                throw .malformedPicture(
                    "segment \(hex(marker)) at offset \(start) claims \(length) bytes, past the end of the file")
            }
            position = payload.upperBound
            if marker == JPEGSegment.startOfScan {
                sawScan = true
                position = endOfEntropyData(from: position)
            }
            return JPEGSegment(marker: marker, range: start..<position, payload: payload)
        }
    }

    /// The offset of the marker that ends the entropy-coded data starting at `offset` (or the end of the
    /// file): in it, FF is followed by 00 (a stuffed FF), a restart marker, or more fill bytes.
    private func endOfEntropyData(from offset: Int) -> Int {
        var index = offset
        while let ff = bytes[index...].firstIndex(of: 0xFF) {
            guard let next = bytes.byte(at: ff + 1) else { return bytes.count }
            switch next {
            case 0x00, 0xD0...0xD7: index = ff + 2
            case 0xFF: index = ff + 1
            default: return ff
            }
        }
        return bytes.count
    }
}

func hex(_ byte: UInt8) -> String {
    let digits = String(byte, radix: 16, uppercase: true)
    return digits.count == 1 ? "0" + digits : digits
}
