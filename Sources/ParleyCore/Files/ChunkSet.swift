/// Which of a file's chunks are held: one bit each.
public struct ChunkSet: Sendable, Hashable {
    public let count: Int
    private var words: [UInt64]
    public private(set) var held = 0

    public init(count: Int) {
        self.count = count
        words = Array(repeating: 0, count: (count + 63) / 64)
    }

    public func contains(_ index: Int) -> Bool { words[index / 64] & (1 << UInt64(index % 64)) != 0 }

    public mutating func insert(_ index: Int) {
        guard !contains(index) else { return }
        words[index / 64] |= 1 << UInt64(index % 64)
        held += 1
    }

    public var isFull: Bool { held == count }
    public var missing: Int { count - held }

    /// The first index from `start` on (wrapping) that is not held and passes `isFree`.
    func firstMissing(from start: Int, where isFree: (Int) -> Bool) -> Int? {
        guard held < count else { return nil }
        for offset in 0..<count {
            let index = (start + offset) % count
            if !contains(index), isFree(index) { return index }
        }
        return nil
    }
}
