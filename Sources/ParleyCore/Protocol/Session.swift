public import ParleyCrypto

/// An established, authenticated session with one peer: directional keys, counters and a replay window.
public struct Session: Sendable {
    public let peer: PeerID
    public let localIndex: UInt32
    public let remoteIndex: UInt32
    public let establishedAt: Duration
    /// When a packet last authenticated on it (or when it was established): the peer still sends on it.
    public internal(set) var lastHeardAt: Duration
    public internal(set) var address: PeerAddress
    let keys: SessionKeys
    var nextCounter: UInt64 = 1
    var replay = ReplayWindow()

    init(
        peer: PeerID, localIndex: UInt32, remoteIndex: UInt32, keys: SessionKeys, address: PeerAddress,
        establishedAt: Duration
    ) {
        self.peer = peer
        self.localIndex = localIndex
        self.remoteIndex = remoteIndex
        self.keys = keys
        self.address = address
        self.establishedAt = establishedAt
        self.lastHeardAt = establishedAt
    }

    /// Seals frames into one data packet, consuming a counter.
    mutating func seal(_ plaintext: [UInt8]) -> [UInt8] {
        let counter = nextCounter
        nextCounter += 1
        let header = Packet.dataHeader(receiverIndex: remoteIndex, counter: counter)
        return keys.send.seal(plaintext, counter: counter, after: header)
    }

    /// Authenticates then records the counter; a replay or forgery throws and changes nothing.
    mutating func open(counter: UInt64, sealed: [UInt8]) throws(ProtocolRejection) -> [UInt8] {
        guard replay.isFresh(counter) else { throw .replayed }
        let header = Packet.dataHeader(receiverIndex: localIndex, counter: counter)
        let plaintext: [UInt8]
        do { plaintext = try keys.receive.open(sealed, counter: counter, associatedData: header) } catch {
            throw .decryptFailed
        }
        guard replay.accept(counter) else { throw .replayed }
        return plaintext
    }
}
