public import ParleyNode

/// `status`: this node's protocol health and who its user is, in the API's own words.
public struct StatusView: Codable, Sendable, Hashable {
    /// This node's public key, in hex.
    public let peer: String
    /// What this node's user is called (its key file's name).
    public let name: String
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
    /// Others' messages stored since start that another member relayed (its sync or retransmission):
    /// traffic that went around a missing session, such as across NATs.
    public let storedRelayed: Int
    /// Reliable frames sent again since start because their ack did not come in time.
    public let framesRetransmitted: Int
    /// Messages sent in answer to members' sync requests since start.
    public let syncMessagesSent: Int
    /// Others' messages pushed on since start to members that reach their author only through this node.
    public let relayedOnward: Int
    /// The share of others' messages stored since start that another member relayed, 0 to 1 (0 with none stored).
    public let relayedShare: Double
    /// File chunks fetched and checked here, and chunks served to members, since start (§13e).
    public let fileChunksFetched: Int
    public let fileChunksServed: Int

    init(_ status: NodeStatus, name: String) {
        (peer, self.name, listen, rejections) = (status.peer, name, status.listen, status.rejections)
        (datagramsIn, datagramsOut, connectedPeers, knownPeers) = (
            status.datagramsIn, status.datagramsOut, status.connectedPeers, status.knownPeers
        )
        (pendingRetransmits, storedFromAuthors, storedRelayed) = (
            status.pendingRetransmits, status.storedFromAuthors, status.storedRelayed
        )
        (framesRetransmitted, syncMessagesSent) = (status.framesRetransmitted, status.syncMessagesSent)
        relayedOnward = status.relayedOnward
        let stored = status.storedFromAuthors + status.storedRelayed
        relayedShare = stored == 0 ? 0 : Double(status.storedRelayed) / Double(stored)
        (fileChunksFetched, fileChunksServed) = (status.fileChunksFetched, status.fileChunksServed)
    }
}
