import NIOCore
public import ParleyCrypto

/// A chat's signed genesis: who created it, its title and its member list. The chat id is its hash.
public struct ChatInvite: Hashable, Sendable, Identifiable {
    public static let maxMembers = 512
    public static let maxTitleBytes = 200
    static let kind: UInt8 = 0x02

    public let creator: PeerID
    public let createdAtMillis: Int64
    public let nonce: [UInt8]
    public let title: String
    /// Sorted, unique, and always includes the creator.
    public let members: [PeerID]
    public let signature: ParleyCrypto.Signature
    public let encoded: [UInt8]
    public let id: ChatID

    public func isMember(_ peer: PeerID) -> Bool { members.contains(peer) }

    /// Creates and signs an invite; the creator is always a member.
    public static func create(
        by identity: Identity, title: String, members: [PeerID], createdAtMillis: Int64,
        nonce: [UInt8] = secureRandomBytes(count: 16)
    ) throws(CoreError) -> ChatInvite {
        let all = Array(Set(members + [identity.publicKey])).sorted()
        try validate(title: title, members: all, nonce: nonce)
        let body = encodeBody(creator: identity.publicKey, createdAt: createdAtMillis, nonce: nonce, title: title, members: all)
        let signature = identity.signature(for: body)
        let encoded = body + signature.rawRepresentation
        return ChatInvite(
            creator: identity.publicKey, createdAtMillis: createdAtMillis, nonce: nonce, title: title,
            members: all, signature: signature, encoded: encoded, id: .hashing(encoded))
    }

    /// Parses and verifies an invite: a bad signature is a `CoreError`, like any other bad encoding.
    public init(decoding bytes: [UInt8]) throws(CoreError) {
        var buffer = ByteBuffer(bytes: bytes)
        let version = try buffer.readU8("version")
        guard version == WireVersion.current else { throw .unsupportedVersion(version) }
        guard try buffer.readU8("kind") == Self.kind else { throw .malformed("not a chat invite") }
        let creator = try buffer.readPeer("creator")
        let createdAt = try buffer.readI64("created at")
        let nonce = try buffer.readExactly(16, "nonce")
        let title = try buffer.readShortString("title")
        let count = Int(try buffer.readU16("member count"))
        guard count <= Self.maxMembers else { throw .invalid("a chat has at most \(Self.maxMembers) members") }
        var members: [PeerID] = []
        for _ in 0..<count { members.append(try buffer.readPeer("member")) }
        let signature = try buffer.readSignature("signature")
        try buffer.expectFullyRead("chat invite")
        guard members == Array(Set(members)).sorted(), members.contains(creator) else {
            throw .invalid("chat members must be sorted, unique and include the creator")
        }
        try Self.validate(title: title, members: members, nonce: nonce)
        do { try creator.verify(signature, for: Array(bytes.dropLast(ParleyCrypto.Signature.byteCount))) } catch {
            throw .badSignature("chat invite")
        }
        self.init(
            creator: creator, createdAtMillis: createdAt, nonce: nonce, title: title, members: members,
            signature: signature, encoded: bytes, id: .hashing(bytes))
    }

    private init(
        creator: PeerID, createdAtMillis: Int64, nonce: [UInt8], title: String, members: [PeerID],
        signature: ParleyCrypto.Signature, encoded: [UInt8], id: ChatID
    ) {
        self.creator = creator
        self.createdAtMillis = createdAtMillis
        self.nonce = nonce
        self.title = title
        self.members = members
        self.signature = signature
        self.encoded = encoded
        self.id = id
    }

    private static func validate(title: String, members: [PeerID], nonce: [UInt8]) throws(CoreError) {
        let titleBytes = title.utf8.count
        guard titleBytes > 0 else { throw .invalid("a chat title cannot be empty") }
        guard titleBytes <= maxTitleBytes else { throw .tooLarge("chat title", limit: maxTitleBytes, actual: titleBytes) }
        guard members.count <= maxMembers else { throw .invalid("a chat has at most \(maxMembers) members") }
        guard nonce.count == 16 else { throw .malformed("chat nonce must be 16 bytes") }
    }

    private static func encodeBody(creator: PeerID, createdAt: Int64, nonce: [UInt8], title: String, members: [PeerID]) -> [UInt8] {
        var buffer = ByteBuffer()
        buffer.writeInteger(WireVersion.current)
        buffer.writeInteger(kind)
        buffer.writeBytes(creator.rawRepresentation)
        buffer.writeInteger(createdAt, endianness: .big)
        buffer.writeBytes(nonce)
        buffer.writeShortString(title)
        buffer.writeInteger(UInt16(members.count), endianness: .big)
        for member in members { buffer.writeBytes(member.rawRepresentation) }
        return Array(buffer.readableBytesView)
    }
}
