import NIOCore
public import ParleyCrypto

/// The content of a "Membership" message: the creator of a group chat sets its member list for a new
/// epoch and hands each member the new key (newly added members also get the earlier keys, so
/// they can read the history and compute the same tallies as everyone else).
///
/// Every member applies it only if its author is the chat's creator; the highest (epoch, message id)
/// decides the current members (docs/PROTOCOL.md §Membership).
public struct MembershipChange: Sendable {
    static let format: UInt8 = 1

    public let epoch: UInt32
    /// Sorted and unique.
    public let members: [PeerID]
    /// One sealed `KeyGrant` per member, in `members` order.
    public let grants: [[UInt8]]

    /// Builds a change for `members` (the creator included), sealing `keys(member)` to each.
    public static func make(
        epoch: UInt32, members: [PeerID], keys: (PeerID) -> [EpochKey]
    ) throws(CoreError) -> MembershipChange {
        let sorted = Array(Set(members)).sorted()
        guard epoch > 0 else { throw .invalid("membership epochs after the invite start at 1") }
        guard sorted.count <= ChatInvite.maxMembers else {
            throw .invalid("a chat has at most \(ChatInvite.maxMembers) members")
        }
        var grants: [[UInt8]] = []
        for member in sorted {
            let grant = try KeyGrant.seal(keys(member), to: member)
            guard grant.count <= Int(UInt16.max) else {
                throw .tooLarge("a member's key grant", limit: Int(UInt16.max), actual: grant.count)
            }
            grants.append(grant)
        }
        let change = MembershipChange(epoch: epoch, members: sorted, grants: grants)
        let size = change.encoded().count
        guard size <= Message.maxContentBytes else {
            throw .tooLarge("membership change", limit: Message.maxContentBytes, actual: size)
        }
        return change
    }

    private init(epoch: UInt32, members: [PeerID], grants: [[UInt8]]) {
        self.epoch = epoch
        self.members = members
        self.grants = grants
    }

    public init(decoding content: [UInt8]) throws(CoreError) {
        var buffer = ByteBuffer(bytes: content)
        guard try buffer.readU8("membership format") == Self.format else {
            throw .malformed("unknown membership format")
        }
        let epoch = try buffer.readU32("epoch")
        guard epoch > 0 else { throw .malformed("membership epoch 0 belongs to the invite") }
        let count = Int(try buffer.readU16("member count"))
        guard count > 0, count <= ChatInvite.maxMembers else { throw .malformed("membership of \(count) members") }
        var members: [PeerID] = []
        for _ in 0..<count { members.append(try buffer.readPeer("member")) }
        guard zip(members, members.dropFirst()).allSatisfy({ $0 < $1 }) else {
            throw .malformed("members must be sorted and unique")
        }
        let grants = try KeyGrant.read(count: count, from: &buffer)
        try buffer.expectFullyRead("membership change")
        self.init(epoch: epoch, members: members, grants: grants)
    }

    public func encoded() -> [UInt8] {
        var buffer = ByteBuffer()
        buffer.writeInteger(Self.format)
        buffer.writeInteger(epoch, endianness: .big)
        buffer.writeInteger(UInt16(members.count), endianness: .big)
        for member in members { buffer.writeBytes32(member.bytes) }
        KeyGrant.write(grants, to: &buffer)
        return Array(buffer.readableBytesView)
    }

    /// This member's keys, or nil if the change does not include it.
    public func keys(for identity: Identity) throws(CoreError) -> [EpochKey]? {
        guard let index = members.firstIndex(of: identity.publicKey) else { return nil }
        return try KeyGrant.open(grants[index], with: identity)
    }
}
