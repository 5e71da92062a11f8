import ParleyCrypto
import Testing

/// Ids and keys keep their 32 bytes inline: the bytes, their order and their equality must be those
/// of the bytes themselves, on any machine's byte order.
struct Bytes32Tests {
    @Test func keepsTheBytesAsGivenAndAppendsThemInOrder() {
        let bytes = (0..<32).map { UInt8($0 * 7 & 0xff) }
        let stored = Bytes32(bytes)
        #expect(stored.array == bytes)
        #expect(stored.withUnsafeBytes { Array($0) } == bytes)
        var appended: [UInt8] = [0xaa]
        appended.append(stored)
        #expect(appended == [0xaa] + bytes)
        #expect(Bytes32(bytes[...]) == stored, "from a slice")
        #expect(
            Bytes32((0..<32).lazy.map { UInt8($0 * 7 & 0xff) }) == stored,
            "from a collection with no contiguous storage")
        let longer = bytes + [0xff, 0xfe]
        #expect(longer.withUnsafeBytes { Bytes32(copying: $0) } == stored, "the first 32 bytes of a codec's buffer")
    }

    @Test func ordersAsTheBytesLexicographicOrder() {
        // Pairs that differ in one byte at each position, in both directions, and random pairs
        var generator = SystemRandomNumberGenerator()
        var pairs: [([UInt8], [UInt8])] = []
        for position in 0..<32 {
            var low = [UInt8](repeating: 0x80, count: 32), high = low
            low[position] = 0x7f
            high[position] = 0x81
            // A later byte that would decide the opposite way, to catch a little-endian word compare
            if position < 31 { low[31] = 0xff; high[31] = 0x00 }
            pairs += [(low, high), (high, low)]
        }
        for _ in 0..<500 {
            pairs.append(
                (
                    (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) },
                    (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
                ))
        }
        for (left, right) in pairs {
            #expect((Bytes32(left) < Bytes32(right)) == left.lexicographicallyPrecedes(right), "\(left) < \(right)")
        }
        #expect(!(Bytes32(pairs[0].0) < Bytes32(pairs[0].0)))
    }

    @Test func equalBytesAreEqualAndHashAlikeOthersAreNot() {
        let bytes = (0..<32).map { UInt8($0) }
        var other = bytes
        other[31] ^= 1
        #expect(Bytes32(bytes) == Bytes32(Array(bytes)))
        #expect(Bytes32(bytes).hashValue == Bytes32(Array(bytes)).hashValue)
        #expect(Bytes32(bytes) != Bytes32(other))
        #expect(Set([Bytes32(bytes), Bytes32(bytes), Bytes32(other)]).count == 2)
        #expect(Bytes32([UInt8](repeating: 0, count: 32)).isZero)
        #expect(!Bytes32(bytes).isZero)
    }

    @Test func fillsFromACFunctionThatWritesInPlace() {
        let filled = Bytes32 { out in for index in 0..<32 { out[index] = UInt8(31 - index) } }
        #expect(filled.array == (0..<32).map { UInt8(31 - $0) })
        // BLAKE2b-256 written in place: of nothing, and of "abc" (the vectors `SigningTests` checks through `hash256`)
        #expect(
            Hex.encode(BLAKE2b.hash256Inline(UnsafeRawBufferPointer(start: nil, count: 0)).array)
                == "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8")
        #expect(
            Hex.encode(Array("abc".utf8).withUnsafeBytes { BLAKE2b.hash256Inline($0) }.array)
                == "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319")
    }
}
