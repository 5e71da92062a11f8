import NIOCore
public import ParleyCrypto

/// A signed heartbeat: "this peer is here (or leaving) at this wall time, and beats again within this
/// interval". It travels inside a session with that peer, which proves it is the peer's own; the
/// signature lets a member it is relayed to check that too. The interval grows with the number of peers a node beats to
/// (`PresenceSchedule`), so the receiver's timeout is read from each beat rather than configured.
public struct PresenceBeat: Sendable, Hashable {
    public enum Status: UInt8, Sendable, Hashable {
        case online = 1
        /// Sent on graceful shutdown: the peer is gone now, not after the timeout.
        case leaving = 2
    }

    /// Peer id (32), wall time (8), status (1), interval (4), signature (64).
    public static let encodedCount = 32 + 8 + 1 + 4 + 64

    /// The intervals a beat may announce, in milliseconds; others are malformed. The upper bound
    /// keeps a peer that dies without a goodbye from showing online for more than `timeout` (122 s).
    public static let intervalMillisRange: ClosedRange<UInt32> = 1_000...60_000

    public let peer: PeerID
    public let wallMillis: Int64
    public let status: Status
    /// The sender's next beat comes within this many milliseconds.
    public let intervalMillis: UInt32
    public let signature: ParleyCrypto.Signature

    public init(
        peer: PeerID, wallMillis: Int64, status: Status, intervalMillis: UInt32, signature: ParleyCrypto.Signature
    ) {
        self.peer = peer
        self.wallMillis = wallMillis
        self.status = status
        self.intervalMillis = intervalMillis
        self.signature = signature
    }

    /// `interval` is clamped into `intervalMillisRange`.
    public static func make(identity: Identity, wallMillis: Int64, status: Status, interval: Duration) -> PresenceBeat {
        let intervalMillis = UInt32(
            min(max(interval.millis, Int64(intervalMillisRange.lowerBound)), Int64(intervalMillisRange.upperBound)))
        let transcript = Transcript.presence(
            peer: identity.publicKey, wallMillis: wallMillis, status: status, intervalMillis: intervalMillis)
        return PresenceBeat(
            peer: identity.publicKey, wallMillis: wallMillis, status: status, intervalMillis: intervalMillis,
            signature: identity.signature(for: transcript))
    }

    /// How long the sender stays online without another beat: two missed beats and 2 s of slack
    /// (12 s for the smallest chats' 5 s interval).
    public var timeout: Duration { Self.timeout(intervalMillis: Int64(intervalMillis)) }

    /// The timeout a beat announcing `interval` carries.
    public static func timeout(interval: Duration) -> Duration { timeout(intervalMillis: interval.millis) }

    private static func timeout(intervalMillis: Int64) -> Duration { .milliseconds(2 * intervalMillis + 2_000) }

    /// Throws unless the beat is `sender`'s own (the peer of the session it came on) and fresh within
    /// the announcement tolerance of `wallMillis`. Its signature is not checked here: only `sender`
    /// holds the keys of its session, which authenticated the packet, so the check would prove nothing
    /// more, and it was more than half of an idle node's CPU (a verification per peer per interval). The
    /// signature is what lets the beat be relayed: `verifyRelayed` checks it.
    public func checkOnOwnSession(from sender: PeerID, wallMillis now: Int64) throws(ProtocolRejection) {
        guard peer == sender else { throw .badSignature }
        try checkFresh(wallMillis: now)
    }

    /// The checks of a beat relayed by another member (PROTOCOL.md §12a): fresh and signed by its peer.
    public func verifyRelayed(wallMillis now: Int64) throws(ProtocolRejection) {
        try checkFresh(wallMillis: now)
        let transcript = Transcript.presence(
            peer: peer, wallMillis: wallMillis, status: status, intervalMillis: intervalMillis)
        do { try peer.verify(signature, for: transcript) } catch {
            throw .badSignature
        }
    }

    private func checkFresh(wallMillis now: Int64) throws(ProtocolRejection) {
        guard Freshness.isWithin(wallMillis, of: now, tolerance: Announcement.freshness) else { throw .stale }
    }

    func write(to buffer: inout ByteBuffer) {
        buffer.writeBytes32(peer.bytes)
        buffer.writeInteger(wallMillis, endianness: .big)
        buffer.writeInteger(status.rawValue)
        buffer.writeInteger(intervalMillis, endianness: .big)
        buffer.writeBytes(signature.rawRepresentation)
    }

    init(reading body: inout ByteBuffer) throws(CoreError) {
        peer = try body.readPeer("presence peer")
        wallMillis = try body.readI64("presence time")
        let rawStatus = try body.readU8("presence status")
        guard let status = Status(rawValue: rawStatus) else { throw .malformed("unknown presence status \(rawStatus)") }
        self.status = status
        intervalMillis = try body.readU32("presence interval")
        guard Self.intervalMillisRange.contains(intervalMillis) else {
            throw .malformed("presence interval \(intervalMillis) ms out of range")
        }
        signature = try body.readSignature("presence signature")
    }
}

extension Transcript {
    static func presence(peer: PeerID, wallMillis: Int64, status: PresenceBeat.Status, intervalMillis: UInt32)
        -> [UInt8]
    {
        Array("parley/2 presence".utf8) + peer.rawRepresentation + bigEndian(wallMillis) + [status.rawValue]
            + withUnsafeBytes(of: intervalMillis.bigEndian, Array.init)
    }
}
