import NIOCore
public import ParleyCrypto

/// The exact bytes each signature covers. The ASCII labels separate the domains so a signature
/// made for one purpose can never be replayed as another.
enum Transcript {
    static func handshakeInit(ephemeral: AgreementPublicKey, responder: PeerID, timestampMillis: Int64) -> [UInt8] {
        Array("parley/1 handshake init".utf8) + ephemeral.rawRepresentation + responder.rawRepresentation
            + bigEndian(timestampMillis)
    }

    static func handshakeResponse(
        responderEphemeral: AgreementPublicKey, initiatorEphemeral: AgreementPublicKey, initiator: PeerID,
        responder: PeerID
    ) -> [UInt8] {
        Array("parley/1 handshake response".utf8) + responderEphemeral.rawRepresentation
            + initiatorEphemeral.rawRepresentation + initiator.rawRepresentation + responder.rawRepresentation
    }

    static func announce(peer: PeerID, timestampMillis: Int64) -> [UInt8] {
        Array("parley/1 announce".utf8) + peer.rawRepresentation + bigEndian(timestampMillis)
    }

    static func bigEndian(_ value: Int64) -> [UInt8] {
        var buffer = ByteBuffer()
        buffer.writeInteger(value, endianness: .big)
        return Array(buffer.readableBytesView)
    }
}

/// Signed announcements: how a node says "this key listens at my source address".
public enum Announcement {
    public static let freshness: Int64 = 120_000

    public static func make(identity: Identity, wallMillis: Int64) -> Packet {
        let signature = identity.signature(
            for: Transcript.announce(peer: identity.publicKey, timestampMillis: wallMillis))
        return .announce(peer: identity.publicKey, timestampMillis: wallMillis, signature: signature)
    }

    /// Throws unless the signature verifies and the timestamp is within ±2 minutes of `wallMillis`.
    public static func verify(
        peer: PeerID, timestampMillis: Int64, signature: ParleyCrypto.Signature, wallMillis: Int64
    ) throws(ProtocolRejection) {
        guard Freshness.isWithin(timestampMillis, of: wallMillis, tolerance: freshness) else { throw .stale }
        do { try peer.verify(signature, for: Transcript.announce(peer: peer, timestampMillis: timestampMillis)) } catch
        {
            throw .badSignature
        }
    }
}

/// Why inbound data was refused. Each case is a counter in `parley status`.
public enum ProtocolRejection: String, Error, Sendable, CaseIterable, Codable {
    case malformed
    case unsupportedVersion
    case badSignature
    case decryptFailed
    case replayed
    case stale
    case unknownSession
    case notMember
    case unknownChat
    /// A chat invite whose creator is not a contact (see `InvitePolicy`).
    case uninvited
    /// A datagram dropped unprocessed because its source used up its budget (see `RateLimiter`),
    /// or a handshake refused because the replay memory is full.
    case rateLimited
    /// A vote for a message that is not a poll: stored like any member's message, counted by no tally.
    case notAPoll
    /// A message whose sequence or Lamport clock is above 2^63 − 1, which the store cannot hold.
    case outOfRange
    /// An invite to a new legacy (kind `0x02`) chat, whose content would travel unsealed.
    case unsealedChat
    /// A held invite from a stranger, dropped because 100 newer ones are waiting for the user.
    case pendingInviteDropped
    /// A chained message that the author's chain proves is not the author's: the author's next
    /// message names another one for its slot (a segment whose hashes do not link).
    case brokenChain
    /// A chained message that no verified head vouched for within 30 s (a segment that never reached
    /// a head). Its author's retransmits or sync bring it again if it was genuine.
    case headless
    /// A held chained message evicted to make room for another member's, the holding being full: the
    /// member holding the most gives way (see `ChainAssembler.hold`). Its sender resends it.
    case heldEvicted
    /// A second message of one author for one (chat, sequence), vouched for by the author's own
    /// signature: the author signed two histories. The first one stored stays.
    case equivocation
    /// A fork proof kept (PROTOCOL.md §4.4): an author of a chat signed two histories, and from the
    /// forked sequence on its messages there count for nothing. Counted once per proof kept (the first
    /// for its chat and author, or one showing an earlier fork), not per datagram.
    case forkProven
    /// A sealed ballot envelope refused by a relay: its sender, its publisher and this node share no
    /// chat, or the sender passed more than its budget of envelopes (docs/BALLOTS.md §4).
    case ballotRelayRefused
    /// A sealed ballot envelope for this node that does not open, or whose ballot is not a valid
    /// secret ballot on a poll of this node that is still taking ballots.
    case badBallot
    /// An edit of a held message by someone other than its author (§13d): stored, shown by no node.
    case editNotAuthor
    /// A deletion of a held message by someone who is neither its author nor the chat's creator (§13d).
    case deleteNotAllowed
    /// An edit, deletion or pin of a held message it cannot apply to: a poll edited, a vote deleted,
    /// a pin of what a chat does not show, content that does not decode, a target in another chat (§13d).
    case amendmentNotApplicable
    /// A file chunk that does not open or does not match its manifest's hash tree (§13e): not written,
    /// and its sender is asked for nothing more of that file.
    case fileChunkRefused
    /// A file's chunk wants refused: the asker is not a member of the file's chat now, or it asked for
    /// more chunks than its budget allows (§13e).
    case fileWantRefused
}

/// Timestamps come from the network before any signature is checked: compare without overflow.
enum Freshness {
    static func isWithin(_ timestamp: Int64, of now: Int64, tolerance: Int64) -> Bool {
        let (difference, overflow) = timestamp.subtractingReportingOverflow(now)
        return !overflow && difference.magnitude <= UInt64(tolerance)
    }
}
