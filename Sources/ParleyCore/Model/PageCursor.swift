import ParleyCrypto

/// A position in a newest-first list of messages (reactions, ballots, answers), ordered by
/// (Lamport clock, message id) and printed as "LAMPORT-IDHEX". Clients treat it as opaque.
public struct PageCursor: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let lamport: UInt64
    public let id: MessageID

    public init(lamport: UInt64, id: MessageID) {
        self.lamport = lamport
        self.id = id
    }

    public init(parsing text: String) throws(CoreError) {
        let parts = text.split(separator: "-", maxSplits: 1)
        guard parts.count == 2, let lamport = UInt64(parts[0]), let bytes = try? Hex.decode(String(parts[1])),
            let id = try? MessageID(rawRepresentation: bytes)
        else { throw .invalid("'\(text)' is not a cursor from an earlier page") }
        self.init(lamport: lamport, id: id)
    }

    public var description: String { "\(lamport)-\(id.hex)" }
    public static func < (lhs: Self, rhs: Self) -> Bool { (lhs.lamport, lhs.id) < (rhs.lamport, rhs.id) }
}
