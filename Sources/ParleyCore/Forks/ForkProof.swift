import NIOCore
public import ParleyCrypto

/// Self-verifying evidence that an author signed two histories in one chat (PROTOCOL.md §4.4).
///
/// Each branch is a run of the author's messages with consecutive sequences, each naming the one
/// before it as `previous`, topped by a signed head: the head's signature vouches for the whole run,
/// as it does on receipt (§4.1). The two branches disagree about one slot, the forked `sequence` s:
/// `first` starts with the author's message at s; `second` starts either with another message at s,
/// or with a message at s + 1 whose `previous` is not the first's id (all zeros included: "I made
/// nothing at s", while the first branch shows a message at s). Anyone can check a proof without
/// holding anything, so it travels like a message and every member reaches the same verdict.
public struct ForkProof: Sendable, Hashable {
    public static let formatVersion: UInt8 = 1
    /// A chained message is at most 127 sequences below the head that vouches for it (§4.1), so a
    /// branch needs at most 128 messages.
    public static let maxBranchMessages = 128
    /// The largest proof that travels as one frame in one datagram (§5, §8). A larger one (a branch of
    /// big messages) is kept all the same and spread as its branches' messages (`Frame.forkEvidence`).
    public static let maxEncodedBytes = Packet.maxDatagramBytes - 14 - 16 - Frame.headerBytes

    public let first: [Message]
    public let second: [Message]
    public let encoded: [UInt8]

    public var chat: ChatID { first[0].chat }
    public var author: PeerID { first[0].author }
    /// The slot the two branches disagree about: from here on, the author's messages in this chat count for nothing.
    public var sequence: UInt64 { first[0].sequence }

    /// Builds a proof from two branches, checking everything `init(decoding:)` checks.
    public init(first: [Message], second: [Message]) throws(CoreError) {
        try Self.validate(first: first, second: second)
        var buffer = ByteBuffer()
        buffer.writeInteger(Self.formatVersion)
        Self.write(first, to: &buffer)
        Self.write(second, to: &buffer)
        let encoded = Array(buffer.readableBytesView)
        self.first = first
        self.second = second
        self.encoded = encoded
    }

    /// Decodes and checks a proof: both branches linked and signed, and disagreeing about one slot.
    public init(decoding bytes: [UInt8]) throws(CoreError) {
        var buffer = ByteBuffer(bytes: bytes)
        let format = try buffer.readU8("fork proof format")
        guard format == Self.formatVersion else { throw .malformed("fork proof format \(format)") }
        let first = try Self.readBranch(&buffer)
        let second = try Self.readBranch(&buffer)
        try buffer.expectFullyRead("fork proof")
        try self.init(first: first, second: second)
    }

    /// The chat, author and forked sequence a proof's encoding claims, read from its first message's
    /// header without checking anything: to skip a proof about a fork already held at or below it.
    public static func slot(inEncoding bytes: [UInt8]) -> (chat: ChatID, author: PeerID, sequence: UInt64)? {
        // format (1), branch length (2), message length (4), then the message: version, kind, chat, author, sequence.
        let message = 7
        guard bytes.count >= message + 74, bytes[0] == formatVersion else { return nil }
        var buffer = ByteBuffer(bytes: bytes[(message + 2)..<(message + 74)])
        guard let chat = try? buffer.readDigest("chat"), let author = try? buffer.readPeer("author"),
            let sequence = try? buffer.readU64("sequence")
        else { return nil }
        return (chat, author, sequence)
    }

    private static func validate(first: [Message], second: [Message]) throws(CoreError) {
        try checkBranch(first)
        try checkBranch(second)
        let (a, b) = (first[0], second[0])
        guard b.chat == a.chat, b.author == a.author else {
            throw .invalid("a fork proof's branches are of different chats or authors")
        }
        let disagrees =
            b.sequence == a.sequence
            ? b.id != a.id
            : b.sequence == a.sequence &+ 1 && b.previous != a.id
        guard disagrees else { throw .invalid("a fork proof's branches do not disagree about sequence \(a.sequence)") }
    }

    /// One author's linked run, its top a head whose signature verifies.
    private static func checkBranch(_ branch: [Message]) throws(CoreError) {
        guard let top = branch.last, branch.count <= maxBranchMessages else {
            throw .invalid("a fork proof branch holds 1 to \(maxBranchMessages) messages")
        }
        // Sequences above 2^63 − 1 are never stored (§4.1), so no proof needs one.
        guard branch.allSatisfy({ $0.sequence <= UInt64(Int64.max) }) else {
            throw .invalid("a fork proof names a sequence above 2^63 − 1")
        }
        for (lower, upper) in zip(branch, branch.dropFirst()) {
            guard upper.chat == lower.chat, upper.author == lower.author, upper.sequence == lower.sequence &+ 1,
                upper.previous == lower.id
            else {
                throw .invalid("a fork proof branch is not one linked run of its author's messages")
            }
        }
        guard top.isHead else { throw .invalid("a fork proof branch does not end at a signed head") }
        do { try top.verifySignature() } catch { throw .badSignature("fork proof head") }
    }

    private static func write(_ branch: [Message], to buffer: inout ByteBuffer) {
        buffer.writeInteger(UInt16(branch.count), endianness: .big)
        for message in branch {
            buffer.writeInteger(UInt32(message.encoded.count), endianness: .big)
            buffer.writeBytes(message.encoded)
        }
    }

    private static func readBranch(_ buffer: inout ByteBuffer) throws(CoreError) -> [Message] {
        let count = Int(try buffer.readU16("fork proof branch length"))
        guard (1...maxBranchMessages).contains(count) else {
            throw .malformed("fork proof branch of \(count) messages")
        }
        var branch: [Message] = []
        for _ in 0..<count {
            let length = Int(try buffer.readU32("fork proof message length"))
            branch.append(try Message(decoding: try buffer.readExactly(length, "fork proof message")))
        }
        return branch
    }
}
