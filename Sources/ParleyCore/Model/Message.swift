import NIOCore
public import ParleyCrypto

/// What an author fills in; `chained()` and `signed(by:)` turn it into a `Message`.
public struct MessageDraft: Hashable, Sendable {
    public var chat: ChatID
    public var author: PeerID
    public var sequence: UInt64
    /// The id of the author's message at `sequence - 1` in this chat, which this one vouches for once
    /// a signed head covers it (§4.1 of PROTOCOL.md); nil links to nothing (always at sequence 1).
    public var previous: MessageID?
    public var lamport: UInt64
    public var timestampMillis: Int64
    public var tag: Tag
    public var content: [UInt8]
    public var references: [MessageReference]

    public init(
        chat: ChatID, author: PeerID, sequence: UInt64, previous: MessageID? = nil, lamport: UInt64,
        timestampMillis: Int64,
        tag: Tag, content: [UInt8], references: [MessageReference] = []
    ) {
        self.chat = chat
        self.author = author
        self.sequence = sequence
        self.previous = previous
        self.lamport = lamport
        self.timestampMillis = timestampMillis
        self.tag = tag
        self.content = content
        self.references = references
    }
}

/// A chat message: a link in its author's hash chain. Its id is the BLAKE2b-256 of its body (every
/// field, no signature), so a message has one id whether or not it carries a signature.
///
/// Only a batch's last message, its **head**, is signed (over its id). A verified head vouches for the
/// message its `previous` names, and that one for its own previous, down the chain: a receiver accepts
/// a chained message once a verified head, directly or through accepted links, names it (`ChainAssembler`).
public struct Message: Hashable, Sendable, Identifiable {
    public static let maxContentBytes = 60_000
    public static let maxReferences = 32
    static let kind: UInt8 = 0x01
    /// Where `previous` sits in the encoding: after version, kind, chat, author and sequence.
    static let previousOffset = 1 + 1 + 32 + 32 + 8
    /// Where the tag sits: after `previous`, lamport and timestamp. The fields from here on vary in length.
    static let tagOffset = previousOffset + 32 + 8 + 8
    /// What a head's signature covers, before the id.
    static let headLabel = Array("parley/2 chain head".utf8)

    /// One shared box: the receive path passes messages through arrays, tuples, sets and dictionaries
    /// at every step, and a copy of the fields themselves cost a retain for each of their buffers
    /// (a sixth of the 2-node bench's CPU went to retain and release).
    private final class Storage: Sendable {
        let draft: MessageDraft
        let signature: ParleyCrypto.Signature?
        let encoded: [UInt8]
        let id: MessageID

        init(draft: MessageDraft, signature: ParleyCrypto.Signature?, encoded: [UInt8], id: MessageID) {
            self.draft = draft
            self.signature = signature
            self.encoded = encoded
            self.id = id
        }
    }

    private let storage: Storage

    init(draft: MessageDraft, signature: ParleyCrypto.Signature?, encoded: [UInt8], id: MessageID) {
        storage = Storage(draft: draft, signature: signature, encoded: encoded, id: id)
    }

    public var draft: MessageDraft { storage.draft }
    /// The author's signature over `headLabel || id` for a head; nil for a chained message.
    public var signature: ParleyCrypto.Signature? { storage.signature }
    public var encoded: [UInt8] { storage.encoded }
    public var id: MessageID { storage.id }

    public var chat: ChatID { storage.draft.chat }
    public var author: PeerID { storage.draft.author }
    public var sequence: UInt64 { storage.draft.sequence }
    public var previous: MessageID? { storage.draft.previous }
    public var lamport: UInt64 { storage.draft.lamport }
    public var timestampMillis: Int64 { storage.draft.timestampMillis }
    public var tag: Tag { storage.draft.tag }
    public var content: [UInt8] { storage.draft.content }
    public var references: [MessageReference] { storage.draft.references }
    public var text: String { String(decoding: storage.draft.content, as: UTF8.self) }
    /// Whether it carries its author's signature (ends a batch).
    public var isHead: Bool { storage.signature != nil }

    /// Equal when every field is: the same encoding can carry another draft (`opened(content:)` gives
    /// the caller its plaintext beside the sealed encoding).
    public static func == (lhs: Message, rhs: Message) -> Bool {
        lhs.storage === rhs.storage
            || (lhs.id == rhs.id && lhs.signature == rhs.signature && lhs.encoded == rhs.encoded
                && lhs.draft == rhs.draft)
    }

    /// The id alone: equal messages have equal ids.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(storage.id)
    }
}

/// Printed and dumped with its fields, as before they moved into the shared box.
extension Message: CustomReflectable {
    public var customMirror: Mirror {
        Mirror(self, children: ["draft": draft, "signature": signature as Any, "encoded": encoded, "id": id])
    }
}

extension MessageDraft {
    /// Checks the limits and signs: a head, which vouches for itself and its chain. The caller's
    /// identity must be the author.
    public func signed(by identity: Identity) throws(CoreError) -> Message {
        try chained().signedAsHead(by: identity)
    }

    /// Checks the limits and encodes without a signature: a link that a later head must vouch for.
    public func chained() throws(CoreError) -> Message {
        try validateLimits()
        let body = encodeBody()
        return Message(draft: self, signature: nil, encoded: body + [0], id: .hashing(body))
    }

    /// Throws when the content or references exceed the limits, the sequence is 0, or the first
    /// message of a chain names a previous one.
    public func validateLimits() throws(CoreError) {
        guard content.count <= Message.maxContentBytes else {
            throw .tooLarge("message content", limit: Message.maxContentBytes, actual: content.count)
        }
        guard references.count <= Message.maxReferences else {
            throw .invalid("a message may carry at most \(Message.maxReferences) references, got \(references.count)")
        }
        guard sequence > 0 else { throw .invalid("sequence numbers start at 1") }
        guard sequence > 1 || previous == nil else {
            throw .malformed("the first message of an author names no previous one")
        }
    }

    /// The hashed bytes: everything in the encoding before the seal byte.
    func encodeBody() -> [UInt8] {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(160 + content.count + references.count * 48)
        buffer.writeInteger(WireVersion.current)
        buffer.writeInteger(Message.kind)
        buffer.writeBytes32(chat.bytes)
        buffer.writeBytes32(author.bytes)
        buffer.writeInteger(sequence, endianness: .big)
        buffer.writeBytes32(previous?.bytes ?? Message.noPrevious)
        buffer.writeInteger(lamport, endianness: .big)
        buffer.writeInteger(timestampMillis, endianness: .big)
        buffer.writeShortString(tag.rawValue)
        buffer.writeInteger(UInt8(references.count))
        for reference in references {
            buffer.writeBytes32(reference.id.bytes)
            buffer.writeShortString(reference.tag.rawValue)
        }
        buffer.writeInteger(UInt32(content.count), endianness: .big)
        buffer.writeBytes(content)
        return Array(buffer.readableBytesView)
    }
}

extension Message {
    /// 32 zero bytes: the `previous` of a message that links to nothing.
    static let noPrevious = Bytes32([UInt8](repeating: 0, count: Digest32.byteCount))

    /// The same message as a head: its body, then its author's signature over `headLabel || id`.
    /// The id does not change. The caller's identity must be the author.
    public func signedAsHead(by identity: Identity) throws(CoreError) -> Message {
        guard identity.publicKey == author else { throw .invalid("a message must be signed by its author") }
        let signature = identity.signature(for: headSignedBytes)
        return Message(
            draft: draft, signature: signature, encoded: Array(body) + [1] + signature.rawRepresentation, id: id)
    }

    /// The hashed bytes of the encoding: everything before the seal byte.
    var body: ArraySlice<UInt8> { encoded.dropLast(isHead ? 1 + ParleyCrypto.Signature.byteCount : 1) }

    /// What a head's signature covers: `headLabel || id`.
    private var headSignedBytes: [UInt8] {
        var bytes = Message.headLabel
        bytes.append(id.bytes)
        return bytes
    }

    /// Parses an encoding without checking a head's signature: see `verifySignature()`.
    public init(decoding bytes: [UInt8]) throws(CoreError) {
        var buffer = ByteBuffer(bytes: bytes)
        let version = try buffer.readU8("version")
        guard version == WireVersion.current else { throw .unsupportedVersion(version) }
        guard try buffer.readU8("kind") == Message.kind else { throw .malformed("not a message") }
        let chat = try buffer.readDigest("chat")
        let author = try buffer.readPeer("author")
        let sequence = try buffer.readU64("sequence")
        let previous = try buffer.readDigest("previous")
        let lamport = try buffer.readU64("lamport")
        let timestamp = try buffer.readI64("timestamp")
        let tag = try Tag(buffer.readShortString("tag"))
        let referenceCount = Int(try buffer.readU8("reference count"))
        var references: [MessageReference] = []
        references.reserveCapacity(referenceCount)
        for _ in 0..<referenceCount {
            let id = try buffer.readDigest("reference id")
            references.append(MessageReference(id: id, tag: try Tag(buffer.readShortString("reference tag"))))
        }
        let contentLength = Int(try buffer.readU32("content length"))
        guard contentLength <= Message.maxContentBytes else {
            throw .tooLarge("message content", limit: Message.maxContentBytes, actual: contentLength)
        }
        let content = try buffer.readExactly(contentLength, "content")
        let bodyLength = buffer.readerIndex
        let signature: ParleyCrypto.Signature?
        switch try buffer.readU8("seal") {
        case 0: signature = nil
        case 1: signature = try buffer.readSignature("signature")
        case let other: throw .malformed("seal byte \(other) is neither 0 (chained) nor 1 (signed head)")
        }
        try buffer.expectFullyRead("message")
        let draft = MessageDraft(
            chat: chat, author: author, sequence: sequence,
            previous: previous.bytes.isZero ? nil : previous, lamport: lamport,
            timestampMillis: timestamp, tag: tag, content: content, references: references)
        try draft.validateLimits()
        let id = bytes.withUnsafeBytes { MessageID.hashing(UnsafeRawBufferPointer(rebasing: $0[..<bodyLength])) }
        self.init(draft: draft, signature: signature, encoded: bytes, id: id)
    }

    /// Throws unless this is a head whose author's signature covers its id.
    public func verifySignature() throws(CryptoError) {
        guard let signature else { throw .badSignature }
        try author.verify(signature, for: headSignedBytes)
    }

    /// Whether an encoding is a signed head, read from its seal byte without decoding or hashing the
    /// rest (for stored rows, which were checked when stored). Nil when the bytes end before the seal
    /// byte, the content is longer than a message's may be, or the seal byte is neither 0 nor 1.
    public static func isHead(inEncoding bytes: [UInt8]) -> Bool? {
        var offset = tagOffset
        func skipShortString() -> Bool {
            guard offset < bytes.count else { return false }
            offset += 1 + Int(bytes[offset])
            return true
        }
        guard skipShortString(), offset < bytes.count else { return nil } // the tag
        let referenceCount = Int(bytes[offset])
        offset += 1
        for _ in 0..<referenceCount {
            offset += Digest32.byteCount
            guard skipShortString() else { return nil }
        }
        guard offset + 4 <= bytes.count else { return nil }
        let contentLength = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
        guard contentLength <= maxContentBytes else { return nil }
        offset += 4 + contentLength
        guard offset < bytes.count else { return nil }
        switch bytes[offset] {
        case 0: return false
        case 1: return true
        default: return nil
        }
    }

    /// The `previous` field of an encoding, without decoding the rest (for stored rows, which were
    /// checked when stored). Nil when it links to nothing or the bytes are too short.
    public static func previous(inEncoding bytes: [UInt8]) -> MessageID? {
        guard bytes.count >= previousOffset + Digest32.byteCount else { return nil }
        let raw = bytes[previousOffset..<previousOffset + Digest32.byteCount]
        return raw.allSatisfy { $0 == 0 } ? nil : try? MessageID(rawRepresentation: raw)
    }
}

/// The protocol version carried in the first byte of every encoding and datagram. Version 2 chains
/// each author's messages by hash and signs only batch heads; a version 1 encoding or datagram is
/// refused (`unsupportedVersion`).
public enum WireVersion {
    public static let current: UInt8 = 2
}
