import ParleyCore
import ParleyCrypto
import Synchronization

/// The node's protocol health, for `parley status` and embedding apps.
extension Node {
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
            syncMessagesSent: syncMessagesSent.load(ordering: .relaxed),
            relayedOnward: relayPushes.load(ordering: .relaxed),
            fileChunksFetched: transfers.state.withLock(\.chunksFetched),
            fileChunksServed: transfers.state.withLock(\.chunksServed))
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
    /// Others' messages pushed on since start to members that reach their author only through this
    /// node (PROTOCOL.md §12a): the traffic this node relays around a missing session.
    public let relayedOnward: Int
    /// File chunks fetched and checked here, and served to members, since start (§13e).
    public let fileChunksFetched: Int
    public let fileChunksServed: Int
}
