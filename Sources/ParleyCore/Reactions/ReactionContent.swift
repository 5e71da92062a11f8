import NIOCore

/// The content of a "Reaction" message: an add (with a score, optionally replacing the author's
/// other reactions on the message) or a removal. Layout in docs/PROTOCOL.md §13a.
public struct ReactionContent: Hashable, Sendable {
    /// Scores are bounded so that no sum over a chat's members can overflow.
    public static let maxScore = 1_000_000
    static let version: UInt8 = 1

    public let type: ReactionType
    /// 0 for a removal.
    public let score: Int
    public let removed: Bool
    /// An add that clears the author's other types on the message.
    public let unique: Bool

    public static func add(_ type: ReactionType, score: Int = 1, unique: Bool = false) throws(CoreError)
        -> ReactionContent
    {
        guard (-maxScore...maxScore).contains(score) else {
            throw .invalid("a reaction score must be between -\(maxScore) and \(maxScore), got \(score)")
        }
        return ReactionContent(type: type, score: score, removed: false, unique: unique)
    }

    public static func removal(_ type: ReactionType) -> ReactionContent {
        ReactionContent(type: type, score: 0, removed: true, unique: false)
    }

    private init(type: ReactionType, score: Int, removed: Bool, unique: Bool) {
        self.type = type
        self.score = score
        self.removed = removed
        self.unique = unique
    }

    private struct Flags: OptionSet {
        let rawValue: UInt8
        static let removed = Flags(rawValue: 1)
        static let unique = Flags(rawValue: 2)
    }

    /// version 1, flags u8 (1 removed, 2 unique), score i32 big-endian, type (u8 length + UTF-8).
    public func encoded() -> [UInt8] {
        var flags: Flags = []
        if removed { flags.insert(.removed) }
        if unique { flags.insert(.unique) }
        var buffer = ByteBuffer()
        buffer.writeInteger(Self.version)
        buffer.writeInteger(flags.rawValue)
        // Constructors keep |score| ≤ maxScore, which fits an Int32.
        buffer.writeInteger(Int32(score), endianness: .big)
        buffer.writeShortString(type.rawValue)
        return Array(buffer.readableBytesView)
    }

    /// Throws for anything this version did not write: the rules then ignore the message.
    public static func decode(_ content: [UInt8]) throws(CoreError) -> ReactionContent {
        var buffer = ByteBuffer(bytes: content)
        let version = try buffer.readU8("reaction version")
        guard version == Self.version else { throw .malformed("unknown reaction encoding version \(version)") }
        let flags = Flags(rawValue: try buffer.readU8("reaction flags"))
        guard flags.rawValue & ~(Flags.removed.rawValue | Flags.unique.rawValue) == 0, flags != [.removed, .unique]
        else {
            throw .malformed("invalid reaction flags \(flags.rawValue)")
        }
        guard let rawScore = buffer.readInteger(endianness: .big, as: Int32.self) else {
            throw .malformed("truncated at reaction score")
        }
        let type = try ReactionType(try buffer.readShortString("reaction type"))
        try buffer.expectFullyRead("reaction")
        let score = Int(rawScore)
        if flags.contains(.removed) {
            guard score == 0 else { throw .malformed("a reaction removal carries score 0") }
            return .removal(type)
        }
        return try .add(type, score: score, unique: flags.contains(.unique))
    }
}
