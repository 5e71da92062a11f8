import ParleyCrypto

/// The hash tree over a file's chunks (PROTOCOL.md §13e): a leaf is BLAKE2b-256(0x00 ‖ chunk), an inner
/// node BLAKE2b-256(0x01 ‖ left ‖ right); each level pairs its nodes in order and carries an odd last one
/// up unchanged. The manifest signs the root; every chunk travels with the sibling hashes from its leaf
/// to the root, so a chunk from any member is checked alone, before it is written.
public struct FileTree: Sendable {
    /// Each level's hashes, leaves first; the last level holds the root alone.
    private let levels: [[Digest32]]

    public init(leaves: [Digest32]) {
        precondition(!leaves.isEmpty, "a file has at least one chunk")
        var levels = [leaves]
        while let top = levels.last, top.count > 1 { levels.append(Self.parents(of: top)) }
        self.levels = levels
    }

    public var root: Digest32 { levels[levels.count - 1][0] }
    public var leafCount: Int { levels[0].count }

    public static func leaf(_ chunk: some Collection<UInt8>) -> Digest32 {
        var bytes: [UInt8] = [0]
        bytes.reserveCapacity(chunk.count + 1)
        bytes.append(contentsOf: chunk)
        return .hashing(bytes)
    }

    static func parent(_ left: Digest32, _ right: Digest32) -> Digest32 {
        var bytes: [UInt8] = [1]
        bytes.reserveCapacity(65)
        left.bytes.withUnsafeBytes { bytes.append(contentsOf: $0) }
        right.bytes.withUnsafeBytes { bytes.append(contentsOf: $0) }
        return .hashing(bytes)
    }

    private static func parents(of level: [Digest32]) -> [Digest32] {
        stride(from: 0, to: level.count, by: 2).map { index in
            index + 1 < level.count ? parent(level[index], level[index + 1]) : level[index]
        }
    }

    /// The sibling hashes from leaf `index` up, skipping the levels where its node has no sibling.
    public func proof(for index: Int) -> [Digest32] {
        var proof: [Digest32] = []
        var position = index
        for level in levels.dropLast() {
            let sibling = position ^ 1
            if sibling < level.count { proof.append(level[sibling]) }
            position /= 2
        }
        return proof
    }

    /// Whether `leaf` at `index` of a tree of `count` leaves leads to `root` through `proof`. The tree's
    /// shape follows from `count` alone, so a proof of the wrong length fails too.
    public static func verify(leaf: Digest32, index: Int, count: Int, proof: [Digest32], root: Digest32) -> Bool {
        guard index >= 0, index < count else { return false }
        var hash = leaf
        var position = index
        var width = count
        var used = 0
        while width > 1 {
            let sibling = position ^ 1
            if sibling < width {
                guard used < proof.count else { return false }
                hash = position & 1 == 0 ? parent(hash, proof[used]) : parent(proof[used], hash)
                used += 1
            }
            position /= 2
            width = (width + 1) / 2
        }
        return used == proof.count && hash == root
    }

    /// The most sibling hashes any proof holds for a tree of `count` leaves.
    public static func depth(ofLeaves count: Int) -> Int {
        var width = max(count, 1)
        var depth = 0
        while width > 1 {
            width = (width + 1) / 2
            depth += 1
        }
        return depth
    }
}
