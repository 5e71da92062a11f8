import NIOCore
public import ParleyCrypto

/// A chat's signed genesis: who created it, its kind, name and first members, and (for keyed
/// chats) the epoch-0 chat key sealed to each member. The chat id is its hash.
///
/// Two encodings: kind `0x03` (current: keyed, with a chat kind) and kind `0x02` (chats made before
/// content keys: a group whose content travels unsealed and whose members never change).
public struct ChatInvite: Hashable, Sendable, Identifiable {
    public static let maxMembers = 512
    public static let maxTitleBytes = 200
    static let legacyKind: UInt8 = 0x02
    static let keyedKind: UInt8 = 0x03

    public let creator: PeerID
    public let createdAtMillis: Int64
    public let nonce: [UInt8]
    public let kind: ChatKind
    /// The chat's name; may be empty for a direct chat (shown as the other member's name).
    public let title: String
    /// The first members: sorted, unique, always including the creator. Later changes are
    /// "Membership" messages, so ask the store for the current members.
    public let members: [PeerID]
    /// One sealed epoch-0 `KeyGrant` per member, in `members` order; empty for a legacy chat.
    public let grants: [[UInt8]]
    public let signature: ParleyCrypto.Signature
    public let encoded: [UInt8]
    public let id: ChatID

    /// Whether message content in this chat is sealed with chat keys (`SealedContent`).
    public var isKeyed: Bool { !grants.isEmpty }

    public func isMember(_ peer: PeerID) -> Bool { members.contains(peer) }

    /// Creates and signs an invite sealing `key` (epoch 0) to every member; the creator is always a member.
    /// Without a key it is a legacy (kind `0x02`) group whose content travels unsealed: only tests,
    /// benchmarks of the raw store and test vectors make those.
    public static func create(
        by identity: Identity, kind: ChatKind = .group, title: String, members: [PeerID], key: ChatKey? = nil,
        createdAtMillis: Int64, nonce: [UInt8] = secureRandomBytes(count: 16)
    ) throws(CoreError) -> ChatInvite {
        let all = Array(Set(members + [identity.publicKey])).sorted()
        try validate(kind: kind, title: title, members: all, nonce: nonce)
        guard key != nil || kind == .group else { throw .invalid("a direct chat needs a chat key") }
        var grants: [[UInt8]] = []
        if let key {
            for member in all { grants.append(try KeyGrant.seal([EpochKey(epoch: 0, key: key)], to: member)) }
        }
        let body = encodeBody(
            creator: identity.publicKey, createdAt: createdAtMillis, nonce: nonce, kind: kind, title: title,
            members: all, grants: grants)
        let signature = identity.signature(for: body)
        let encoded = body + signature.rawRepresentation
        return ChatInvite(
            creator: identity.publicKey, createdAtMillis: createdAtMillis, nonce: nonce, kind: kind, title: title,
            members: all, grants: grants, signature: signature, encoded: encoded, id: .hashing(encoded))
    }

    /// Parses and verifies an invite: a bad signature is a `CoreError`, like any other bad encoding.
    public init(decoding bytes: [UInt8]) throws(CoreError) {
        var buffer = ByteBuffer(bytes: bytes)
        let version = try buffer.readU8("version")
        guard version == WireVersion.current else { throw .unsupportedVersion(version) }
        let encoding = try buffer.readU8("kind")
        guard encoding == Self.legacyKind || encoding == Self.keyedKind else { throw .malformed("not a chat invite") }
        let creator = try buffer.readPeer("creator")
        let createdAt = try buffer.readI64("created at")
        let nonce = try buffer.readExactly(16, "nonce")
        let kind = encoding == Self.keyedKind ? try ChatKind(wireValue: buffer.readU8("chat kind")) : .group
        let title = try buffer.readShortString("title")
        let count = Int(try buffer.readU16("member count"))
        guard count <= Self.maxMembers else { throw .invalid("a chat has at most \(Self.maxMembers) members") }
        var members: [PeerID] = []
        for _ in 0..<count { members.append(try buffer.readPeer("member")) }
        let grants = encoding == Self.keyedKind ? try KeyGrant.read(count: count, from: &buffer) : []
        let signature = try buffer.readSignature("signature")
        try buffer.expectFullyRead("chat invite")
        guard members == Array(Set(members)).sorted(), members.contains(creator) else {
            throw .invalid("chat members must be sorted, unique and include the creator")
        }
        try Self.validate(kind: kind, title: title, members: members, nonce: nonce)
        do { try creator.verify(signature, for: Array(bytes.dropLast(ParleyCrypto.Signature.byteCount))) } catch {
            throw .badSignature("chat invite")
        }
        self.init(
            creator: creator, createdAtMillis: createdAt, nonce: nonce, kind: kind, title: title, members: members,
            grants: grants, signature: signature, encoded: bytes, id: .hashing(bytes))
    }

    private init(
        creator: PeerID, createdAtMillis: Int64, nonce: [UInt8], kind: ChatKind, title: String, members: [PeerID],
        grants: [[UInt8]], signature: ParleyCrypto.Signature, encoded: [UInt8], id: ChatID
    ) {
        self.creator = creator
        self.createdAtMillis = createdAtMillis
        self.nonce = nonce
        self.kind = kind
        self.title = title
        self.members = members
        self.grants = grants
        self.signature = signature
        self.encoded = encoded
        self.id = id
    }

    /// This member's epoch-0 key, or nil if the invite does not name it (it was added later) or
    /// the chat is a legacy one.
    public func key(for identity: Identity) throws(CoreError) -> EpochKey? {
        guard isKeyed, let index = members.firstIndex(of: identity.publicKey) else { return nil }
        guard let key = try KeyGrant.open(grants[index], with: identity).first(where: { $0.epoch == 0 }) else {
            throw .invalid("the invite's key grant holds no epoch-0 key")
        }
        return key
    }

    private static func validate(kind: ChatKind, title: String, members: [PeerID], nonce: [UInt8]) throws(CoreError) {
        let titleBytes = title.utf8.count
        guard titleBytes > 0 || kind == .direct else { throw .invalid("a group chat needs a name") }
        guard titleBytes <= maxTitleBytes else {
            throw .tooLarge("chat title", limit: maxTitleBytes, actual: titleBytes)
        }
        guard members.count <= maxMembers else { throw .invalid("a chat has at most \(maxMembers) members") }
        guard kind == .group || members.count == 2 else {
            throw .invalid("a direct chat is between exactly two people")
        }
        guard nonce.count == 16 else { throw .malformed("chat nonce must be 16 bytes") }
    }

    private static func encodeBody(
        creator: PeerID, createdAt: Int64, nonce: [UInt8], kind: ChatKind, title: String, members: [PeerID],
        grants: [[UInt8]]
    ) -> [UInt8] {
        var buffer = ByteBuffer()
        let keyed = !grants.isEmpty
        buffer.writeInteger(WireVersion.current)
        buffer.writeInteger(keyed ? keyedKind : legacyKind)
        buffer.writeBytes32(creator.bytes)
        buffer.writeInteger(createdAt, endianness: .big)
        buffer.writeBytes(nonce)
        if keyed { buffer.writeInteger(kind.wireValue) }
        buffer.writeShortString(title)
        buffer.writeInteger(UInt16(members.count), endianness: .big)
        for member in members { buffer.writeBytes32(member.bytes) }
        KeyGrant.write(grants, to: &buffer)
        return Array(buffer.readableBytesView)
    }
}
