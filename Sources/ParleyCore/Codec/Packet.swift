import NIOCore
public import ParleyCrypto

/// The four datagram layouts. Only this header travels in clear; see docs/PROTOCOL.md §Packets.
public enum Packet: Sendable, Hashable {
    /// Opens a session: the initiator's identity and signature are sealed to the responder.
    case handshakeInit(senderIndex: UInt32, ephemeral: AgreementPublicKey, sealed: [UInt8])
    /// Completes a session: the responder's signature, sealed with the new session key.
    case handshakeResponse(senderIndex: UInt32, receiverIndex: UInt32, ephemeral: AgreementPublicKey, sealed: [UInt8])
    /// Frames sealed with the session key of `receiverIndex`, nonce from `counter`.
    case data(receiverIndex: UInt32, counter: UInt64, sealed: [UInt8])
    /// Signed, clear-text "I am here" for discovery and `--peer` bootstrap.
    case announce(peer: PeerID, timestampMillis: Int64, signature: ParleyCrypto.Signature)

    enum Kind: UInt8 {
        case handshakeInit = 1, handshakeResponse = 2, data = 3, announce = 4
    }

    public static let handshakeInitSealedBytes = 32 + 8 + 64 + 48
    public static let handshakeResponseSealedBytes = 64 + 16
    public static let dataHeaderBytes = 14
    /// The largest datagram we send or accept (IPv4 UDP limit, rounded down).
    public static let maxDatagramBytes = 65_000

    public func encoded() -> [UInt8] {
        if case let .data(receiverIndex, counter, sealed) = self {
            return Self.dataHeader(receiverIndex: receiverIndex, counter: counter) + sealed
        }
        var buffer = ByteBuffer()
        buffer.writeInteger(WireVersion.current)
        switch self {
        case let .handshakeInit(senderIndex, ephemeral, sealed):
            buffer.writeInteger(Kind.handshakeInit.rawValue)
            buffer.writeInteger(senderIndex, endianness: .big)
            buffer.writeBytes(ephemeral.rawRepresentation)
            buffer.writeBytes(sealed)
        case let .handshakeResponse(senderIndex, receiverIndex, ephemeral, sealed):
            buffer.writeInteger(Kind.handshakeResponse.rawValue)
            buffer.writeInteger(senderIndex, endianness: .big)
            buffer.writeInteger(receiverIndex, endianness: .big)
            buffer.writeBytes(ephemeral.rawRepresentation)
            buffer.writeBytes(sealed)
        case .data:
            break // returned above: its header doubles as AEAD associated data
        case let .announce(peer, timestamp, signature):
            buffer.writeInteger(Kind.announce.rawValue)
            buffer.writeBytes32(peer.bytes)
            buffer.writeInteger(timestamp, endianness: .big)
            buffer.writeBytes(signature.rawRepresentation)
        }
        return Array(buffer.readableBytesView)
    }

    /// The 14 clear bytes of a data packet, which are also its AEAD associated data.
    public static func dataHeader(receiverIndex: UInt32, counter: UInt64) -> [UInt8] {
        // Built by hand, not through a ByteBuffer: every datagram sealed or opened builds one.
        var header = [UInt8](repeating: 0, count: dataHeaderBytes)
        header[0] = WireVersion.current
        header[1] = Kind.data.rawValue
        for byte in 0..<4 { header[2 + byte] = UInt8(truncatingIfNeeded: receiverIndex >> (24 - 8 * UInt32(byte))) }
        for byte in 0..<8 { header[6 + byte] = UInt8(truncatingIfNeeded: counter >> (56 - 8 * UInt64(byte))) }
        return header
    }

    /// The clear bytes of a handshake response before its sealed part: its AEAD associated data.
    public static func responseHeader(senderIndex: UInt32, receiverIndex: UInt32, ephemeral: AgreementPublicKey)
        -> [UInt8]
    {
        Packet.handshakeResponse(
            senderIndex: senderIndex, receiverIndex: receiverIndex, ephemeral: ephemeral, sealed: []
        ).encoded()
    }

    public init(decoding bytes: [UInt8]) throws(CoreError) {
        guard bytes.count <= Self.maxDatagramBytes else {
            throw .tooLarge("datagram", limit: Self.maxDatagramBytes, actual: bytes.count)
        }
        guard let version = bytes.first else { throw .malformed("truncated at version") }
        guard version == WireVersion.current else { throw .unsupportedVersion(version) }
        guard bytes.count >= 2 else { throw .malformed("truncated at packet type") }
        guard let kind = Kind(rawValue: bytes[1]) else { throw .malformed("unknown packet type") }
        // Data packets, nearly every datagram, are read straight from the bytes; the rare others
        // through a ByteBuffer over what follows the version and type.
        switch kind {
        case .handshakeInit:
            var buffer = ByteBuffer(bytes: bytes[2...])
            let index = try buffer.readU32("sender index")
            let ephemeral = try buffer.readAgreementKey()
            let sealed = try buffer.readExactly(Self.handshakeInitSealedBytes, "sealed identity")
            try buffer.expectFullyRead("handshake init")
            self = .handshakeInit(senderIndex: index, ephemeral: ephemeral, sealed: sealed)
        case .handshakeResponse:
            var buffer = ByteBuffer(bytes: bytes[2...])
            let sender = try buffer.readU32("sender index")
            let receiver = try buffer.readU32("receiver index")
            let ephemeral = try buffer.readAgreementKey()
            let sealed = try buffer.readExactly(Self.handshakeResponseSealedBytes, "sealed signature")
            try buffer.expectFullyRead("handshake response")
            self = .handshakeResponse(
                senderIndex: sender, receiverIndex: receiver, ephemeral: ephemeral, sealed: sealed)
        case .data:
            guard bytes.count >= Self.dataHeaderBytes + SessionKey.tagByteCount else {
                throw .malformed("data packet too short")
            }
            let receiver = bytes[2..<6].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let counter = bytes[6..<14].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            self = .data(receiverIndex: receiver, counter: counter, sealed: Array(bytes[Self.dataHeaderBytes...]))
        case .announce:
            var buffer = ByteBuffer(bytes: bytes[2...])
            let peer = try buffer.readPeer("peer")
            let timestamp = try buffer.readI64("timestamp")
            let signature = try buffer.readSignature("signature")
            try buffer.expectFullyRead("announce")
            self = .announce(peer: peer, timestampMillis: timestamp, signature: signature)
        }
    }
}

extension ByteBuffer {
    mutating func readAgreementKey() throws(CoreError) -> AgreementPublicKey {
        let bytes = try readExactly(AgreementPublicKey.byteCount, "ephemeral key")
        do { return try AgreementPublicKey(rawRepresentation: bytes) } catch { throw .malformed(error.description) }
    }
}
