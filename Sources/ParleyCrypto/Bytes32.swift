/// Exactly 32 bytes held inline: the storage of public keys and ids. Ids and keys are copied, hashed and
/// compared on every message, ack and dictionary lookup of the receive and send paths; held in an
/// array, each copy was a retain and a release and each new one a heap allocation, which together
/// were a tenth of a 2-node bench profile's samples.
public struct Bytes32: Hashable, Sendable, Comparable {
    public static let count = 32
    // Four words in memory order: the bytes as they were given, whatever the machine's byte order.
    private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    /// `bytes` must hold exactly 32 bytes: callers check the length and report it in their own terms.
    public init(_ bytes: some Collection<UInt8>) {
        precondition(bytes.count == Self.count, "Bytes32 takes 32 bytes, got \(bytes.count)")
        // `copyBytes` copies contiguous storage in one move, and anything else byte by byte.
        Swift.withUnsafeMutableBytes(of: &words) { $0.copyBytes(from: bytes) }
    }

    /// The first 32 bytes of `raw`, which must hold at least that many (a codec's buffer).
    public init(copying raw: UnsafeRawBufferPointer) {
        precondition(raw.count >= Self.count, "Bytes32 takes 32 bytes, got \(raw.count)")
        Swift.withUnsafeMutableBytes(of: &words) {
            $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[..<Self.count]))
        }
    }

    /// Fills the 32 bytes with `fill` (a C function writing its output in place).
    public init(filling fill: (UnsafeMutablePointer<UInt8>) -> Void) {
        Swift.withUnsafeMutablePointer(to: &words) { $0.withMemoryRebound(to: UInt8.self, capacity: Self.count, fill) }
    }

    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try Swift.withUnsafeBytes(of: words, body)
    }

    /// The 32 bytes as a C function takes them (a key's or an id's, for libsodium).
    func withUnsafePointer<R>(_ body: (UnsafePointer<UInt8>) throws -> R) rethrows -> R {
        try Swift.withUnsafePointer(to: words) { try $0.withMemoryRebound(to: UInt8.self, capacity: Self.count, body) }
    }

    public var array: [UInt8] { withUnsafeBytes { Array($0) } }

    public var isZero: Bool { words == (0, 0, 0, 0) }

    public static func == (lhs: Bytes32, rhs: Bytes32) -> Bool { lhs.words == rhs.words }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }

    /// Byte by byte, as the bytes' lexicographic order.
    public static func < (lhs: Bytes32, rhs: Bytes32) -> Bool {
        let (l, r) = (lhs.words, rhs.words)
        if l.0 != r.0 { return l.0.bigEndian < r.0.bigEndian }
        if l.1 != r.1 { return l.1.bigEndian < r.1.bigEndian }
        if l.2 != r.2 { return l.2.bigEndian < r.2.bigEndian }
        return l.3.bigEndian < r.3.bigEndian
    }
}

extension [UInt8] {
    /// Appends an id's or a key's 32 bytes, straight from their inline storage.
    public mutating func append(_ bytes: Bytes32) {
        bytes.withUnsafeBytes { append(contentsOf: $0) }
    }
}
