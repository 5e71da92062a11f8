/// One chunk of a PNG: its four-letter type and where it lies (length, type, data and CRC).
struct PNGChunk: Equatable {
    let type: String
    let range: Range<Int>
    let data: Range<Int>
}

/// The chunks of a PNG from IHDR to IEND, every length checked against the bytes.
enum PNGChunks {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    /// The largest chunk length the format allows (2^31 - 1).
    private static let maximumLength = 0x7FFF_FFFF

    static func all(of bytes: [UInt8]) throws(MediaError) -> [PNGChunk] {
        guard bytes.matches(signature) else { throw .malformedPicture("no PNG signature") }
        var chunks: [PNGChunk] = []
        var position = signature.count
        while chunks.last?.type != "IEND" {
            guard let length = bytes.uint32(at: position) else {
                throw .malformedPicture("the PNG ends at offset \(position) without an IEND chunk")
            }
            let typeBytes = position + 4..<position + 8
            guard length <= maximumLength, position + 12 + length <= bytes.count else {
                throw .malformedPicture(
                    "the chunk at offset \(position) claims \(length) bytes, past the end of the file")
            }
            guard bytes[typeBytes].allSatisfy({ (0x41...0x5A).contains($0 & ~0x20) }) else {
                throw .malformedPicture("the chunk at offset \(position) has no letters for a type")
            }
            let type = String(decoding: bytes[typeBytes], as: UTF8.self)
            guard chunks.isEmpty == (type == "IHDR") else {
                throw .malformedPicture(chunks.isEmpty ? "the first chunk is \(type), not IHDR" : "a second IHDR chunk")
            }
            let end = position + 12 + length
            chunks.append(PNGChunk(type: type, range: position..<end, data: typeBytes.upperBound..<(end - 4)))
            position = end
        }
        return chunks
    }
}
