import NIOCore
import ParleyCrypto

/// The version vector's wire form (PROTOCOL §10), shared by sync requests and poll closes:
/// u16 count, then per author in ascending id order: id (32), highest (u64), range count (u8),
/// and each missing range as first and last (u64 each).
extension ByteBuffer {
    /// Past 65,535 authors (no chat has so many) the rest are left out: a smaller claim, which only
    /// makes a responder send more.
    mutating func writeVersionVector(_ vector: [PeerID: AuthorHoldings]) {
        let entries = vector.sorted(by: { $0.key < $1.key }).prefix(Int(UInt16.max))
        writeInteger(UInt16(entries.count), endianness: .big)
        for (peer, holdings) in entries {
            writeBytes32(peer.bytes)
            writeInteger(holdings.highest, endianness: .big)
            writeInteger(UInt8(holdings.missing.count))
            for range in holdings.missing {
                writeInteger(range.lowerBound, endianness: .big)
                writeInteger(range.upperBound, endianness: .big)
            }
        }
    }

    mutating func readVersionVector() throws(CoreError) -> [PeerID: AuthorHoldings] {
        let count = Int(try readU16("vector count"))
        var vector: [PeerID: AuthorHoldings] = [:]
        for _ in 0..<count {
            let peer = try readPeer("vector peer")
            let highest = try readU64("vector sequence")
            let rangeCount = Int(try readU8("missing range count"))
            guard rangeCount <= AuthorHoldings.maxMissingRanges else { throw .malformed("too many missing ranges") }
            var missing: [ClosedRange<UInt64>] = []
            for _ in 0..<rangeCount {
                let low = try readU64("missing range start"), high = try readU64("missing range end")
                guard low <= high else { throw .malformed("missing range ends before it starts") }
                missing.append(low...high)
            }
            guard vector.updateValue(try AuthorHoldings(highest: highest, missing: missing), forKey: peer) == nil else {
                throw .malformed("a version vector names an author twice")
            }
        }
        return vector
    }
}
