/// A counted reaction: the latest add of one author for one type on a message.
public struct Reaction: Hashable, Sendable {
    public let author: PeerID
    public let type: ReactionType
    public let score: Int
    public let message: MessageID
    public let lamport: UInt64
    public let timestampMillis: Int64

    /// Newest first: by (lamport, message id), both descending.
    var cursor: ReactionCursor { ReactionCursor(lamport: lamport, id: message) }
}

/// The reactions of one type on a message.
public struct ReactionGroup: Hashable, Sendable {
    public let type: ReactionType
    public let count: Int
    /// The sum of the counted reactions' scores.
    public let score: Int
    /// The author timestamps of the earliest and latest counted reactions.
    public let firstAtMillis: Int64
    public let lastAtMillis: Int64
    /// The viewer's own reaction is one of them.
    public let mine: Bool
}

/// How groups are ordered; every order ends with the type's bytes, ascending.
public enum ReactionSort: String, Sendable, CaseIterable, Codable {
    /// Most reactions first.
    case count
    /// Highest score sum first, then most reactions.
    case score
    /// Earliest first reaction first.
    case first
    /// Most recent last reaction first.
    case last

    func precedes(_ lhs: ReactionGroup, _ rhs: ReactionGroup) -> Bool {
        switch self {
        case .count where lhs.count != rhs.count: return lhs.count > rhs.count
        case .score where lhs.score != rhs.score: return lhs.score > rhs.score
        case .score where lhs.count != rhs.count: return lhs.count > rhs.count
        case .first where lhs.firstAtMillis != rhs.firstAtMillis: return lhs.firstAtMillis < rhs.firstAtMillis
        case .last where lhs.lastAtMillis != rhs.lastAtMillis: return lhs.lastAtMillis > rhs.lastAtMillis
        default: return lhs.type < rhs.type
        }
    }
}

/// A position in a newest-first list of reactions, printed as "LAMPORT-IDHEX". Clients treat it as opaque.
public struct ReactionCursor: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let lamport: UInt64
    public let id: MessageID

    public init(lamport: UInt64, id: MessageID) {
        self.lamport = lamport
        self.id = id
    }

    public init(parsing text: String) throws(CoreError) {
        let parts = text.split(separator: "-", maxSplits: 1)
        guard parts.count == 2, let lamport = UInt64(parts[0]), parts[1].count == 2 * MessageID.byteCount,
              let bytes = Self.bytes(hex: parts[1]), let id = try? MessageID(rawRepresentation: bytes)
        else { throw .invalid("'\(text)' is not a cursor from an earlier page") }
        self.init(lamport: lamport, id: id)
    }

    public var description: String { "\(lamport)-\(id.hex)" }
    public static func < (lhs: Self, rhs: Self) -> Bool { (lhs.lamport, lhs.id) < (rhs.lamport, rhs.id) }

    private static func bytes(hex: Substring) -> [UInt8]? {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return bytes
    }
}

/// One page of reactions, newest first; `next` is the cursor for the following page.
public struct ReactionPage: Hashable, Sendable {
    public let items: [Reaction]
    public let next: ReactionCursor?
}
