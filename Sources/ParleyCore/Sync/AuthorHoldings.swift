/// What a node holds of one author's messages in a chat: every sequence in `1...highest` except the
/// `missing` ranges. Sequences above `highest` are not claimed (some may be held; they are resent).
///
/// Sync requests carry one per author, so a responder sends exactly the gaps and the tail, and a
/// gap that no one can fill (an author that skipped a number) costs nothing on later rounds.
public struct AuthorHoldings: Hashable, Sendable {
    /// More gaps than this are summarised by lowering `highest` to the end of the last listed gap.
    public static let maxMissingRanges = 16

    public let highest: UInt64
    public let missing: [ClosedRange<UInt64>]

    /// Validates the shape the wire requires: gaps ascending, disjoint, not adjacent, within `1...highest`.
    public init(highest: UInt64, missing: [ClosedRange<UInt64>] = []) throws(CoreError) {
        guard missing.count <= Self.maxMissingRanges else {
            throw .malformed("\(missing.count) missing ranges; at most \(Self.maxMissingRanges)")
        }
        var floor: UInt64 = 0
        for range in missing {
            guard range.lowerBound > floor, range.upperBound < highest else {
                throw .malformed("missing ranges must be ascending, disjoint and below the highest sequence")
            }
            floor = range.upperBound + 1
        }
        self.highest = highest
        self.missing = missing
    }

    /// Holdings of a store that has every sequence in `1...highest`.
    public static func contiguous(_ highest: UInt64) -> AuthorHoldings {
        AuthorHoldings(unchecked: highest, missing: [])
    }

    fileprivate init(unchecked highest: UInt64, missing: [ClosedRange<UInt64>]) {
        self.highest = highest
        self.missing = missing
    }

    /// The sequences to send, given what the responder holds up to `available`: the gaps, then the tail.
    public func wanted(upTo available: UInt64) -> [ClosedRange<UInt64>] {
        var ranges = missing.compactMap { range -> ClosedRange<UInt64>? in
            range.lowerBound <= available ? range.lowerBound...min(range.upperBound, available) : nil
        }
        if available > highest { ranges.append((highest + 1)...available) }
        return ranges
    }

    /// Whether these holdings claim `sequence`: within `1...highest` and in no missing range.
    public func contains(_ sequence: UInt64) -> Bool {
        sequence >= 1 && sequence <= highest && !missing.contains { $0.contains(sequence) }
    }

    /// Whether these holdings claim every sequence `other` claims: what a node must hold of an author
    /// before it may judge what a close covering `other` admits.
    public func holdsAll(of other: AuthorHoldings) -> Bool {
        wanted(upTo: other.highest).allSatisfy { other.claimsNone(of: $0) }
    }

    /// Whether no sequence in `range` is claimed.
    func claimsNone(of range: ClosedRange<UInt64>) -> Bool {
        let upper = min(range.upperBound, highest)
        guard range.lowerBound <= upper else { return true }
        return missing.contains { $0.lowerBound <= range.lowerBound && upper <= $0.upperBound }
    }

    /// The holdings cut to the part before the first gap: a smaller claim, with nothing missing.
    public var gaplessPrefix: AuthorHoldings {
        AuthorHoldings(unchecked: missing.first.map { $0.lowerBound - 1 } ?? highest, missing: [])
    }

    /// These holdings and `sequences` together (any order, repeats allowed): what a node will hold once
    /// a batch it is storing commits, so its next sync request need not ask for that batch again.
    /// Summarised like any holdings: past `maxMissingRanges` gaps, `highest` stops at the last one.
    public func adding(_ sequences: [UInt64]) -> AuthorHoldings {
        var held: [ClosedRange<UInt64>] = []
        var next: UInt64 = 1
        for gap in missing {
            if gap.lowerBound > next { held.append(next...(gap.lowerBound - 1)) }
            next = gap.upperBound + 1
        }
        if highest >= next { held.append(next...highest) }
        held += sequences.filter { $0 >= 1 }.map { $0...$0 }
        held.sort { $0.lowerBound < $1.lowerBound }
        var builder = AuthorHoldingsBuilder(contiguous: 0)
        for range in held where !builder.add(range) { break }
        return builder.holdings
    }

    /// Encoded size on the wire: highest (8), range count (1), 16 bytes a range.
    var encodedCount: Int { 9 + missing.count * 16 }
}

/// Builds holdings from the sequences held above a contiguous prefix, fed in ascending order.
public struct AuthorHoldingsBuilder: Sendable {
    private var highest: UInt64
    private var missing: [ClosedRange<UInt64>] = []

    public init(contiguous: UInt64) { highest = contiguous }

    /// Adds the next held sequence; false once `maxMissingRanges` gaps are listed (stop feeding).
    public mutating func add(_ sequence: UInt64) -> Bool { add(sequence...sequence) }

    /// Adds a held run that starts at or after the previous one's start (ascending by lower bound);
    /// false once `maxMissingRanges` gaps are listed.
    public mutating func add(_ range: ClosedRange<UInt64>) -> Bool {
        guard range.upperBound > highest else { return true }
        if range.lowerBound > highest + 1 {
            guard missing.count < AuthorHoldings.maxMissingRanges else { return false }
            missing.append((highest + 1)...(range.lowerBound - 1))
        }
        highest = range.upperBound
        return true
    }

    public var holdings: AuthorHoldings { AuthorHoldings(unchecked: highest, missing: missing) }
}
