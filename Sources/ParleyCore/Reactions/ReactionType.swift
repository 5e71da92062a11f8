/// What a reaction says: an emoji or a custom word, 1–64 bytes of UTF-8 without control characters.
///
/// Types compare and hash by their exact UTF-8 bytes, not by Unicode canonical equivalence as
/// `String` does, so every implementation groups and orders them the same way.
public struct ReactionType: Hashable, Comparable, Sendable, CustomStringConvertible {
    public static let maxByteCount = 64
    public let rawValue: String

    public init(_ rawValue: String) throws(CoreError) {
        let count = rawValue.utf8.count
        guard count > 0 else { throw .invalid("a reaction type cannot be empty") }
        guard count <= Self.maxByteCount else { throw .tooLarge("reaction type", limit: Self.maxByteCount, actual: count) }
        guard !rawValue.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalid("a reaction type cannot contain control characters")
        }
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.rawValue.utf8.elementsEqual(rhs.rawValue.utf8) }
    public func hash(into hasher: inout Hasher) { hasher.combine(Array(rawValue.utf8)) }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue.utf8.lexicographicallyPrecedes(rhs.rawValue.utf8) }
}
