import NIOCore
public import ParleyCrypto

/// A signed heartbeat: "this peer is here (or leaving) at this wall time". It travels inside a
/// session with that peer, and the signature lets any receiver check the claim is the peer's own.
public struct PresenceBeat: Sendable, Hashable {
    public enum Status: UInt8, Sendable, Hashable {
        case online = 1
        /// Sent on graceful shutdown: the peer is gone now, not after the timeout.
        case leaving = 2
    }

    /// Peer id (32), wall time (8), status (1), signature (64).
    public static let encodedCount = 32 + 8 + 1 + 64

    public let peer: PeerID
    public let wallMillis: Int64
    public let status: Status
    public let signature: ParleyCrypto.Signature

    public init(peer: PeerID, wallMillis: Int64, status: Status, signature: ParleyCrypto.Signature) {
        self.peer = peer
        self.wallMillis = wallMillis
        self.status = status
        self.signature = signature
    }

    public static func make(identity: Identity, wallMillis: Int64, status: Status) -> PresenceBeat {
        let transcript = Transcript.presence(peer: identity.publicKey, wallMillis: wallMillis, status: status)
        return PresenceBeat(peer: identity.publicKey, wallMillis: wallMillis, status: status, signature: identity.signature(for: transcript))
    }

    /// Throws unless the beat is `sender`'s own (the peer of the session it came on), fresh within
    /// the announcement tolerance of `wallMillis`, and signed by that peer.
    public func verify(from sender: PeerID, wallMillis now: Int64) throws(ProtocolRejection) {
        guard peer == sender else { throw .badSignature }
        guard Freshness.isWithin(wallMillis, of: now, tolerance: Announcement.freshness) else { throw .stale }
        do { try peer.verify(signature, for: Transcript.presence(peer: peer, wallMillis: wallMillis, status: status)) } catch {
            throw .badSignature
        }
    }

    func write(to buffer: inout ByteBuffer) {
        buffer.writeBytes(peer.rawRepresentation)
        buffer.writeInteger(wallMillis, endianness: .big)
        buffer.writeInteger(status.rawValue)
        buffer.writeBytes(signature.rawRepresentation)
    }

    init(reading body: inout ByteBuffer) throws(CoreError) {
        peer = try body.readPeer("presence peer")
        wallMillis = try body.readI64("presence time")
        let rawStatus = try body.readU8("presence status")
        guard let status = Status(rawValue: rawStatus) else { throw .malformed("unknown presence status \(rawStatus)") }
        self.status = status
        signature = try body.readSignature("presence signature")
    }
}

extension Transcript {
    static func presence(peer: PeerID, wallMillis: Int64, status: PresenceBeat.Status) -> [UInt8] {
        Array("parley/1 presence".utf8) + peer.rawRepresentation + bigEndian(wallMillis) + [status.rawValue]
    }
}
