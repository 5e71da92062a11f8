import NIOCore

/// What a voter seals to the member who will publish its ballot (docs/BALLOTS.md §4): the chat and
/// the ballot, zero-padded to the poll's one envelope size (`SecretPoll.envelopeBytes`), so that
/// every envelope of one poll has the same size whatever it selects.
public struct BallotEnvelope: Hashable, Sendable {
    static let version: UInt8 = 1
    /// Sealed envelopes are multiples of this (before the sealed box's 48 bytes).
    public static let padding = 512
    /// Version, chat id and ballot length.
    static let headerBytes = 1 + 32 + 4
    /// The largest plaintext: a ballot over the largest electorate, with room for its selection.
    public static let maxPlaintextBytes = 12 * 1_024

    public let chat: ChatID
    public let ballot: [UInt8]

    public init(chat: ChatID, ballot: [UInt8]) {
        self.chat = chat
        self.ballot = ballot
    }

    /// version 1, chat (32), u32 ballot length, ballot, zeros up to `size` (the poll's
    /// `envelopeBytes`, a multiple of `padding`).
    public func encoded(size: Int) throws(CoreError) -> [UInt8] {
        var buffer = ByteBuffer()
        buffer.writeInteger(Self.version)
        buffer.writeBytes32(chat.bytes)
        buffer.writeInteger(UInt32(ballot.count), endianness: .big)
        buffer.writeBytes(ballot)
        guard size % Self.padding == 0, size >= buffer.readableBytes else {
            throw .invalid("a ballot envelope of \(buffer.readableBytes) bytes does not pad to \(size)")
        }
        guard size <= Self.maxPlaintextBytes else {
            throw .tooLarge("ballot envelope", limit: Self.maxPlaintextBytes, actual: size)
        }
        buffer.writeRepeatingByte(0, count: size - buffer.readableBytes)
        return Array(buffer.readableBytesView)
    }

    public init(decoding bytes: [UInt8]) throws(CoreError) {
        guard bytes.count <= Self.maxPlaintextBytes, bytes.count % Self.padding == 0 else {
            throw .malformed("a ballot envelope is a multiple of \(Self.padding) bytes up to \(Self.maxPlaintextBytes)")
        }
        var buffer = ByteBuffer(bytes: bytes)
        let version = try buffer.readU8("envelope version")
        guard version == Self.version else { throw .malformed("unknown ballot envelope version \(version)") }
        chat = try buffer.readDigest("chat")
        let length = Int(try buffer.readU32("ballot length"))
        ballot = try buffer.readExactly(length, "ballot")
        guard buffer.readableBytesView.allSatisfy({ $0 == 0 }) else {
            throw .malformed("ballot envelope padding is not zero")
        }
    }
}
