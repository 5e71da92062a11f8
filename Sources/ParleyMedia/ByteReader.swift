/// Bounds-checked big- and little-endian reads from a byte array: every read of a peer's bytes goes through
/// these, and an out-of-range read is nil, never a trap.
extension [UInt8] {
    func byte(at offset: Int) -> UInt8? {
        offset >= 0 && offset < count ? self[offset] : nil
    }

    func uint16(at offset: Int, bigEndian: Bool = true) -> Int? {
        guard offset >= 0, offset <= count - 2 else { return nil }
        let (first, second) = (Int(self[offset]), Int(self[offset + 1]))
        return bigEndian ? first << 8 | second : second << 8 | first
    }

    func uint24LE(at offset: Int) -> Int? {
        guard offset >= 0, offset <= count - 3 else { return nil }
        return Int(self[offset]) | Int(self[offset + 1]) << 8 | Int(self[offset + 2]) << 16
    }

    func uint32(at offset: Int, bigEndian: Bool = true) -> Int? {
        guard let high = uint16(at: offset, bigEndian: bigEndian),
            let low = uint16(at: offset + 2, bigEndian: bigEndian)
        else { return nil }
        return bigEndian ? high << 16 | low : low << 16 | high
    }

    /// Whether the bytes at `offset` are `expected` (false when they run past the end).
    func matches(_ expected: [UInt8], at offset: Int = 0) -> Bool {
        guard offset >= 0, offset <= count - expected.count else { return false }
        return self[offset..<(offset + expected.count)].elementsEqual(expected)
    }

    func matches(_ ascii: String, at offset: Int = 0) -> Bool { matches(Array(ascii.utf8), at: offset) }
}
