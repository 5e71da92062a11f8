/// What a reaction says: an emoji or a custom word, 1–64 bytes of UTF-8 without control characters.
///
/// Types compare and hash by their exact UTF-8 bytes, not by Unicode canonical equivalence as
/// `String` does, so every implementation groups and orders them the same way.
public struct ReactionType: Hashable, Comparable, Sendable, CustomStringConvertible {
    public static let maxByteCount = 64
    public let rawValue: String

    public init(_ rawValue: String) throws(CoreError) {
        try ShortWord.validate(rawValue, as: "reaction type", maxBytes: Self.maxByteCount)
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.rawValue.utf8.elementsEqual(rhs.rawValue.utf8) }
    public func hash(into hasher: inout Hasher) { hasher.combine(Array(rawValue.utf8)) }
    public static func < (lhs: Self, rhs: Self) -> Bool {
        lhs.rawValue.utf8.lexicographicallyPrecedes(rhs.rawValue.utf8)
    }
}
