import NIOCore
public import ParleyCrypto

/// What an author fills in; `signed(by:)` turns it into a `Message`.
public struct MessageDraft: Hashable, Sendable {
    public var chat: ChatID
    public var author: PeerID
    public var sequence: UInt64
    public var lamport: UInt64
    public var timestampMillis: Int64
    public var tag: Tag
    public var content: [UInt8]
    public var references: [MessageReference]

    public init(
        chat: ChatID, author: PeerID, sequence: UInt64, lamport: UInt64, timestampMillis: Int64,
        tag: Tag, content: [UInt8], references: [MessageReference] = []
    ) {
        self.chat = chat
        self.author = author
        self.sequence = sequence
        self.lamport = lamport
        self.timestampMillis = timestampMillis
        self.tag = tag
        self.content = content
        self.references = references
    }
}

/// A signed chat message. Its id is the BLAKE2b-256 of `encoded`, which ends with the author's signature.
public struct Message: Hashable, Sendable, Identifiable {
    public static let maxContentBytes = 60_000
    public static let maxReferences = 32
    static let kind: UInt8 = 0x01

    public let draft: MessageDraft
    public let signature: ParleyCrypto.Signature
    public let encoded: [UInt8]
    public let id: MessageID

    public var chat: ChatID { draft.chat }
    public var author: PeerID { draft.author }
    public var sequence: UInt64 { draft.sequence }
    public var lamport: UInt64 { draft.lamport }
    public var timestampMillis: Int64 { draft.timestampMillis }
    public var tag: Tag { draft.tag }
    public var content: [UInt8] { draft.content }
    public var references: [MessageReference] { draft.references }
    public var text: String { String(decoding: draft.content, as: UTF8.self) }
}

extension MessageDraft {
    /// Checks the limits, then signs. The caller's identity must be the author.
    public func signed(by identity: Identity) throws(CoreError) -> Message {
        guard identity.publicKey == author else { throw .invalid("a message must be signed by its author") }
        try validateLimits()
        let body = encodeBody()
        let signature = identity.signature(for: body)
        let encoded = body + signature.rawRepresentation
        return Message(draft: self, signature: signature, encoded: encoded, id: .hashing(encoded))
    }

    /// Throws when the content or references exceed the limits, or the sequence is 0.
    public func validateLimits() throws(CoreError) {
        guard content.count <= Message.maxContentBytes else {
            throw .tooLarge("message content", limit: Message.maxContentBytes, actual: content.count)
        }
        guard references.count <= Message.maxReferences else {
            throw .invalid("a message may carry at most \(Message.maxReferences) references, got \(references.count)")
        }
        guard sequence > 0 else { throw .invalid("sequence numbers start at 1") }
    }

    /// The signed bytes: everything in the encoding before the signature.
    func encodeBody() -> [UInt8] {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(128 + content.count + references.count * 48)
        buffer.writeInteger(WireVersion.current)
        buffer.writeInteger(Message.kind)
        buffer.writeBytes(chat.rawRepresentation)
        buffer.writeBytes(author.rawRepresentation)
        buffer.writeInteger(sequence, endianness: .big)
        buffer.writeInteger(lamport, endianness: .big)
        buffer.writeInteger(timestampMillis, endianness: .big)
        buffer.writeShortString(tag.rawValue)
        buffer.writeInteger(UInt8(references.count))
        for reference in references {
            buffer.writeBytes(reference.id.rawRepresentation)
            buffer.writeShortString(reference.tag.rawValue)
        }
        buffer.writeInteger(UInt32(content.count), endianness: .big)
        buffer.writeBytes(content)
        return Array(buffer.readableBytesView)
    }
}

extension Message {
    /// Parses an encoding without checking the signature: see `verified()`.
    public init(decoding bytes: [UInt8]) throws(CoreError) {
        var buffer = ByteBuffer(bytes: bytes)
        let version = try buffer.readU8("version")
        guard version == WireVersion.current else { throw .unsupportedVersion(version) }
        guard try buffer.readU8("kind") == Message.kind else { throw .malformed("not a message") }
        let chat = try buffer.readDigest("chat")
        let author = try buffer.readPeer("author")
        let sequence = try buffer.readU64("sequence")
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
        let signature = try buffer.readSignature("signature")
        try buffer.expectFullyRead("message")
        let draft = MessageDraft(
            chat: chat, author: author, sequence: sequence, lamport: lamport,
            timestampMillis: timestamp, tag: tag, content: content, references: references)
        try draft.validateLimits()
        self.init(draft: draft, signature: signature, encoded: bytes, id: .hashing(bytes))
    }

    /// Throws unless the author's signature covers the body.
    public func verifySignature() throws(CryptoError) {
        try author.verify(signature, for: Array(encoded.dropLast(ParleyCrypto.Signature.byteCount)))
    }
}

/// The protocol version carried in the first byte of every encoding and datagram.
public enum WireVersion {
    public static let current: UInt8 = 1
}
