import NIOCore
import ParleyCrypto

/// Bounds-checked reads for the decoders: every short read is a `CoreError.malformed`, never a trap.
extension ByteBuffer {
    mutating func readU8(_ field: String) throws(CoreError) -> UInt8 {
        guard let value = readInteger(as: UInt8.self) else { throw .malformed("truncated at \(field)") }
        return value
    }

    mutating func readU16(_ field: String) throws(CoreError) -> UInt16 {
        guard let value = readInteger(endianness: .big, as: UInt16.self) else {
            throw .malformed("truncated at \(field)")
        }
        return value
    }

    mutating func readU32(_ field: String) throws(CoreError) -> UInt32 {
        guard let value = readInteger(endianness: .big, as: UInt32.self) else {
            throw .malformed("truncated at \(field)")
        }
        return value
    }

    mutating func readU64(_ field: String) throws(CoreError) -> UInt64 {
        guard let value = readInteger(endianness: .big, as: UInt64.self) else {
            throw .malformed("truncated at \(field)")
        }
        return value
    }

    mutating func readI64(_ field: String) throws(CoreError) -> Int64 {
        guard let value = readInteger(endianness: .big, as: Int64.self) else {
            throw .malformed("truncated at \(field)")
        }
        return value
    }

    mutating func readExactly(_ count: Int, _ field: String) throws(CoreError) -> [UInt8] {
        guard count >= 0, let bytes = readBytes(length: count) else { throw .malformed("truncated at \(field)") }
        return bytes
    }

    /// The next `count` bytes as a view into this buffer, without copying them.
    mutating func readSlice(exactly count: Int, _ field: String) throws(CoreError) -> ByteBuffer {
        guard count >= 0, let slice = readSlice(length: count) else { throw .malformed("truncated at \(field)") }
        return slice
    }

    mutating func readDigest(_ field: String) throws(CoreError) -> Digest32 {
        Digest32(bytes: try readBytes32(field))
    }

    mutating func readPeer(_ field: String) throws(CoreError) -> PeerID {
        PeerID(bytes: try readBytes32(field))
    }

    /// 32 bytes copied straight into an id's inline storage, with no array in between.
    private mutating func readBytes32(_ field: String) throws(CoreError) -> Bytes32 {
        guard readableBytes >= Bytes32.count else { throw .malformed("truncated at \(field)") }
        let bytes = withUnsafeReadableBytes { Bytes32(copying: $0) }
        moveReaderIndex(forwardBy: Bytes32.count)
        return bytes
    }

    mutating func readSignature(_ field: String) throws(CoreError) -> ParleyCrypto.Signature {
        let bytes = try readExactly(ParleyCrypto.Signature.byteCount, field)
        do { return try ParleyCrypto.Signature(rawRepresentation: bytes) } catch { throw .malformed(error.description) }
    }

    /// A UTF-8 string behind a one-byte length.
    mutating func readShortString(_ field: String) throws(CoreError) -> String {
        try readUTF8(count: Int(try readU8("\(field) length")), field)
    }

    /// A UTF-8 string behind a two-byte big-endian length.
    mutating func readLongString(_ field: String) throws(CoreError) -> String {
        try readUTF8(count: Int(try readU16("\(field) length")), field)
    }

    mutating func writeShortString(_ text: String) {
        let bytes = Array(text.utf8)
        precondition(bytes.count <= Int(UInt8.max), "callers validate lengths before encoding")
        writeInteger(UInt8(bytes.count))
        writeBytes(bytes)
    }

    mutating func writeLongString(_ text: String) {
        let bytes = Array(text.utf8)
        precondition(bytes.count <= Int(UInt16.max), "callers validate lengths before encoding")
        writeInteger(UInt16(bytes.count), endianness: .big)
        writeBytes(bytes)
    }

    private mutating func readUTF8(count: Int, _ field: String) throws(CoreError) -> String {
        let bytes = try readExactly(count, field)
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .malformed("\(field) is not UTF-8") }
        return text
    }

    func expectFullyRead(_ what: String) throws(CoreError) {
        guard readableBytes == 0 else { throw .malformed("\(readableBytes) trailing bytes after \(what)") }
    }
}
