import NIOCore
public import ParleyCrypto

/// A publisher's commitment, made at the closing time before it hands its ballots to the poll's
/// creator, to every ballot it holds (docs/BALLOTS.md §4, "Suppression"): one salted hash per
/// ballot, so no one can tell which published ballots it held, or link them to the members that
/// passed them on, until it reveals one the creator left out (`BallotReveal`).
public struct BallotCommitment: Hashable, Sendable {
    static let version: UInt8 = 1
    static let label = Array("parley/2 ballot commitment".utf8)
    public static let saltBytes = 32
    /// A publisher holds at most one ballot per elector.
    public static let maxEntries = SecretPoll.maxElectorate

    /// Strictly ascending: the order says nothing about when each ballot arrived.
    public let entries: [Digest32]

    /// The commitment to `ballots`, each under its own salt.
    public init(salted ballots: [(salt: [UInt8], ballot: [UInt8])]) throws(CoreError) {
        guard (1...Self.maxEntries).contains(ballots.count) else {
            throw .invalid("a ballot commitment holds 1 to \(Self.maxEntries) ballots, not \(ballots.count)")
        }
        let entries = Set(ballots.map { Self.entry(salt: $0.salt, ballot: $0.ballot) })
        guard entries.count == ballots.count else { throw .invalid("a ballot commitment lists a ballot twice") }
        self.entries = entries.sorted()
    }

    /// `BLAKE2b-256(key = salt, "parley/2 ballot commitment" || BLAKE2b-256(ballot))`.
    public static func entry(salt: [UInt8], ballot: [UInt8]) -> Digest32 {
        Digest32(bytes: Bytes32(BLAKE2b.keyedHash256(key: salt, label + BLAKE2b.hash256(ballot))))
    }

    public func contains(_ reveal: BallotReveal) -> Bool {
        entries.contains(Self.entry(salt: reveal.salt, ballot: reveal.ballot))
    }

    /// version 1, u16 count, the entries.
    public func encoded() -> [UInt8] {
        var buffer = ByteBuffer()
        buffer.writeInteger(Self.version)
        buffer.writeInteger(UInt16(entries.count), endianness: .big)
        for entry in entries { buffer.writeBytes32(entry.bytes) }
        return Array(buffer.readableBytesView)
    }

    public init(decoding bytes: [UInt8]) throws(CoreError) {
        var buffer = ByteBuffer(bytes: bytes)
        let version = try buffer.readU8("commitment version")
        guard version == Self.version else { throw .malformed("unknown ballot commitment version \(version)") }
        let count = Int(try buffer.readU16("commitment count"))
        guard (1...Self.maxEntries).contains(count), buffer.readableBytes == count * 32 else {
            throw .malformed("a ballot commitment holds 1 to \(Self.maxEntries) entries of 32 bytes")
        }
        var entries: [Digest32] = []
        for _ in 0..<count { entries.append(try buffer.readDigest("commitment entry")) }
        guard zip(entries, entries.dropFirst()).allSatisfy({ $0 < $1 }) else {
            throw .malformed("ballot commitment entries are not strictly ascending")
        }
        self.entries = entries
    }
}

/// A publisher's proof, after the creator's close, that it committed to a ballot the creator did not
/// publish: the entry's salt and the ballot itself (docs/BALLOTS.md §4, "Suppression"). It names
/// the ballot, its choice and the publisher that held it, never its voter.
public struct BallotReveal: Hashable, Sendable {
    static let version: UInt8 = 1

    public let salt: [UInt8]
    public let ballot: [UInt8]

    public init(salt: [UInt8], ballot: [UInt8]) {
        self.salt = salt
        self.ballot = ballot
    }

    /// version 1, the salt (32), the ballot (the rest).
    public func encoded() -> [UInt8] { [Self.version] + salt + ballot }

    public init(decoding bytes: [UInt8]) throws(CoreError) {
        guard bytes.count > 1 + BallotCommitment.saltBytes else { throw .malformed("a ballot reveal is too short") }
        guard bytes[0] == Self.version else { throw .malformed("unknown ballot reveal version \(bytes[0])") }
        salt = Array(bytes[1...BallotCommitment.saltBytes])
        ballot = Array(bytes[(1 + BallotCommitment.saltBytes)...])
    }
}
