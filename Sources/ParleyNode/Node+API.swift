import Foundation
public import ParleyCrypto
import Logging
public import ParleyCore
public import ParleyStore
import Synchronization

/// The library API: what the CLI (through the control socket) and embedding apps call.
extension Node {
    /// Creates a chat with a fresh chat key sealed to every member, stores it, and pushes the signed
    /// invite to every member until acknowledged. A direct chat has exactly one other member; asking for
    /// a second one with the same person returns the first.
    public func createChat(title: String, members: [PeerID], kind: ChatKind = .group) async throws -> ChatInvite {
        let others = Set(members).subtracting([me])
        if kind == .direct, others.count != 1 { throw NodeError.invalid("a direct chat is with exactly one other person") }
        // One direct chat per person: asking again opens the one there is.
        if kind == .direct, let existing = try store.chats().first(where: { $0.kind == .direct && Set($0.members) == others.union([me]) }) {
            return existing.invite
        }
        let key = try ChatKey.generate()
        let invite = try ChatInvite.create(
            by: identity, kind: kind, title: title, members: Array(others), key: key, createdAtMillis: clock.wallMillis)
        _ = try await store.saveChat(invite, key: EpochKey(epoch: 0, key: key), joinedAtMillis: clock.wallMillis)
        await pushReliably(invite.members.filter { $0 != me }.map { (.invite(invite.id, to: $0), .invite(invite.encoded)) })
        return invite
    }

    /// Sends `text` as a "Text" message to every member of the chat.
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
            pendingRetransmits: await engine.pendingRetransmits,
            storedFromAuthors: await engine.storedFromAuthors,
            storedRelayed: await engine.storedRelayed,
            framesRetransmitted: await engine.framesRetransmitted,
            syncMessagesSent: syncMessagesSent.load(ordering: .relaxed))
    }

    /// Saves a contact (whose invites are then accepted) and, if given, where to reach it; says what it replaced.
    @discardableResult
    public func addContact(_ contact: Contact) async throws -> ContactUpdate {
        let update = try await store.addContact(contact)
        if let address = contact.address { await engine.learnAddress(address, for: contact.peer) }
        return update
    }

    /// Addresses learned outside the protocol (contacts' `--addr`).
    public func learnAddress(_ address: PeerAddress, for peer: PeerID) async {
        await engine.learnAddress(address, for: peer)
    }
}

/// A snapshot of the node's protocol health, as ``Node/status()`` reports it.
public struct NodeStatus: Sendable, Codable, Hashable {
    /// This node's public key, in hex.
    public let peer: String
    /// The address the transport is bound to.
    public let listen: String
    /// Inbound datagrams and frames refused so far, by reason.
    public let rejections: [String: Int]
    /// Datagrams received since start.
    public let datagramsIn: Int
    /// Datagrams sent since start.
    public let datagramsOut: Int
    /// Peers with an established session, in hex, sorted.
    public let connectedPeers: [String]
    /// The last known address of each peer, by hex key.
    public let knownPeers: [String: String]
    /// Reliable frames still waiting for an acknowledgement.
    public let pendingRetransmits: Int
    /// Others' messages stored since start that their author's node sent here itself.
    public let storedFromAuthors: Int
    /// Others' messages stored since start that another member relayed (its sync or
    /// retransmission): traffic that went around a missing session, such as across NATs.
    public let storedRelayed: Int
    /// Reliable frames sent again since start because their ack did not come in time.
    public let framesRetransmitted: Int
    /// Messages sent in answer to members' sync requests since start.
    public let syncMessagesSent: Int
    /// What this node's user is called (its key file's name); set by the API, which knows it.
    public var name: String? = nil
}
