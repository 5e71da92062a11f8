import Foundation
public import ParleyCrypto
import Logging
public import ParleyCore
public import ParleyStore

/// The library API: what the CLI (through the control socket) and embedding apps call.
extension Node {
    /// Creates a chat with a fresh chat key sealed to every member, stores it, and pushes the signed
    /// invite to every member until acknowledged. A direct chat has exactly one other member.
    public func createChat(title: String, members: [PeerID], kind: ChatKind = .group) async throws -> ChatInvite {
        let others = Set(members).subtracting([me])
        if kind == .direct, others.count != 1 { throw NodeError.invalid("a direct chat is with exactly one other person") }
        let key = try ChatKey.generate()
        let invite = try ChatInvite.create(
            by: identity, kind: kind, title: title, members: Array(others), key: key, createdAtMillis: clock.wallMillis)
        _ = try await store.saveChat(invite, key: EpochKey(epoch: 0, key: key), joinedAtMillis: clock.wallMillis)
        await pushReliably(invite.members.filter { $0 != me }.map { (.invite(invite.id, to: $0), .invite(invite.encoded)) })
        return invite
    }

    public func sendText(chat: ChatID, _ text: String) async throws -> StoredMessage {
        try await send(chat: chat, tag: .text, content: Array(text.utf8))
    }

    /// Protocol health: rejection counters, datagrams, peers.
    public func status() async -> NodeStatus {
        NodeStatus(
            peer: me.hex,
            listen: localAddress.description,
            rejections: await engine.rejections.reduce(into: [:]) { $0[$1.key.rawValue] = $1.value },
            datagramsIn: await engine.datagramsIn,
            datagramsOut: await engine.datagramsOut,
            connectedPeers: await engine.connectedPeers.map(\.hex).sorted(),
            knownPeers: await engine.knownPeers.reduce(into: [:]) { $0[$1.key.hex] = $1.value.description },
            pendingRetransmits: await engine.pendingRetransmits)
    }

    /// Saves a contact (whose invites are then accepted) and, if given, where to reach it.
    public func addContact(_ contact: Contact) async throws {
        try await store.addContact(contact)
        if let address = contact.address { await engine.learnAddress(address, for: contact.peer) }
    }

    /// Addresses learned outside the protocol (contacts' `--addr`).
    public func learnAddress(_ address: PeerAddress, for peer: PeerID) async {
        await engine.learnAddress(address, for: peer)
    }
}

public struct NodeStatus: Sendable, Codable, Hashable {
    public let peer: String
    public let listen: String
    public let rejections: [String: Int]
    public let datagramsIn: Int
    public let datagramsOut: Int
    public let connectedPeers: [String]
    public let knownPeers: [String: String]
    public let pendingRetransmits: Int
}
