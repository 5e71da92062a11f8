import NIOCore
public import ParleyCrypto

/// Every session and half-open handshake of one node: the handshake state machine over values.
/// It does no I/O; callers send the datagrams it returns. See docs/PROTOCOL.md §Handshake.
public struct SessionTable: Sendable {
    public struct Configuration: Sendable {
        /// A handshake's timestamp must be this close to our wall clock.
        public var freshnessMillis: Int64 = 120_000
        /// Sessions older than this are replaced by a new handshake (fresh ephemeral keys).
        public var rekeyAfter: Duration = .seconds(600)
        /// A handshake that got no answer in this time may be retried.
        public var handshakeTimeout: Duration = .seconds(1)
        /// Unanswered handshakes kept per peer: a late response to any of them still completes.
        public var pendingHandshakesPerPeer = 4
        /// Receive-only sessions kept per peer besides the current one.
        public var olderSessionsPerPeer = 16
        /// Peers with a session at once; past it, the peer whose session is oldest is dropped
        /// (it re-handshakes when it next speaks), so strangers cannot grow memory without bound.
        public var maxPeers = 1_024
        /// Handshake ephemerals remembered against replay; when full, new handshakes are refused.
        public var maxRememberedEphemerals = 65_536
        public init() {}
    }

    struct Initiation: Sendable {
        let peer: PeerID
        let ephemeral: EphemeralKeyPair
        let startedAt: Duration
    }

    public let identity: Identity
    public var configuration: Configuration
    private var sessions: [UInt32: Session] = [:]
    private var current: [PeerID: UInt32] = [:]
    private var initiations: [UInt32: Initiation] = [:]
    /// When the newest of our handshakes that completed was started, per peer.
    private var newestCompletedInitiation: [PeerID: Duration] = [:]
    private var seenEphemerals: [AgreementPublicKey: Duration] = [:]
    /// When any session with the peer last authenticated a packet (or was established), and from where.
    private var lastHeard: [PeerID: Duration] = [:]
    private var lastAddress: [PeerID: PeerAddress] = [:]

    public init(identity: Identity, configuration: Configuration = .init()) {
        self.identity = identity
        self.configuration = configuration
    }

    public func session(for peer: PeerID) -> Session? { current[peer].flatMap { sessions[$0] } }
    /// When any of the peer's sessions last heard from it; nil without a session.
    public func lastHeard(from peer: PeerID) -> Duration? { current[peer] == nil ? nil : lastHeard[peer] }
    /// Where any of the peer's sessions last heard from it (a peer may send on an older session).
    public func lastAddress(of peer: PeerID) -> PeerAddress? { current[peer] == nil ? nil : lastAddress[peer] }
    public var connectedPeers: [PeerID] { Array(current.keys) }
    /// Whether a data packet for `index` could open: it names a session we hold.
    public func holdsSession(index: UInt32) -> Bool { sessions[index] != nil }

    /// Whether a new handshake should start now: no usable session, none pending, or the session is old.
    public func needsHandshake(with peer: PeerID, now: Duration) -> Bool {
        if let latest = initiations.values.filter({ $0.peer == peer }).map(\.startedAt).max(),
            now - latest < configuration.handshakeTimeout
        {
            return false
        }
        guard let session = session(for: peer) else { return true }
        return now - session.establishedAt >= configuration.rekeyAfter
    }

    /// Starts a handshake with `peer` at `address`.
    public mutating func initiate(with peer: PeerID, at address: PeerAddress, now: Duration, wallMillis: Int64)
        throws(CryptoError) -> Datagram
    {
        // Keep earlier attempts too: under load their responses may still arrive, and dropping one
        // would leave the responder sending on a session we refuse (`unknownSession`).
        let older = initiations.filter { $0.value.peer == peer }.sorted { $0.value.startedAt > $1.value.startedAt }
        for (index, _) in older.dropFirst(configuration.pendingHandshakesPerPeer - 1) { initiations[index] = nil }
        let ephemeral = try EphemeralKeyPair.generate()
        let index = freshIndex()
        let signature = identity.signature(
            for: Transcript.handshakeInit(ephemeral: ephemeral.publicKey, responder: peer, timestampMillis: wallMillis))
        let payload =
            identity.publicKey.rawRepresentation + Transcript.bigEndian(wallMillis) + signature.rawRepresentation
        let sealed = try peer.agreementKey().seal(payload)
        initiations[index] = Initiation(peer: peer, ephemeral: ephemeral, startedAt: now)
        return Datagram(
            address: address,
            bytes: Packet.handshakeInit(senderIndex: index, ephemeral: ephemeral.publicKey, sealed: sealed).encoded())
    }

    /// Responder side: authenticates the initiator, creates the session and returns the response.
    public mutating func handleInit(
        senderIndex: UInt32, ephemeral: AgreementPublicKey, sealed: [UInt8], from address: PeerAddress, now: Duration,
        wallMillis: Int64
    ) throws(ProtocolRejection) -> (peer: PeerID, response: Datagram) {
        let payload: [UInt8]
        do { payload = try identity.openSealed(sealed) } catch { throw .decryptFailed }
        guard payload.count == 32 + 8 + 64 else { throw .malformed }
        var buffer = ByteBuffer(bytes: payload)
        guard let initiator = try? buffer.readPeer("initiator"), let timestamp = try? buffer.readI64("timestamp"),
            let signature = try? buffer.readSignature("signature")
        else { throw .malformed }
        guard Freshness.isWithin(timestamp, of: wallMillis, tolerance: configuration.freshnessMillis) else {
            throw .stale
        }
        do {
            try initiator.verify(
                signature,
                for: Transcript.handshakeInit(
                    ephemeral: ephemeral, responder: identity.publicKey, timestampMillis: timestamp))
        } catch { throw .badSignature }
        pruneSeenEphemerals(now: now)
        guard seenEphemerals[ephemeral] == nil else { throw .replayed }
        guard seenEphemerals.count < configuration.maxRememberedEphemerals else { throw .rateLimited }
        seenEphemerals[ephemeral] = now

        let own: EphemeralKeyPair
        let keys: SessionKeys
        do {
            own = try EphemeralKeyPair.generate()
            keys = try own.sessionKeys(initiator: false, peer: ephemeral)
        } catch { throw .decryptFailed }
        let index = freshIndex()
        let responseSignature = identity.signature(
            for: Transcript.handshakeResponse(
                responderEphemeral: own.publicKey, initiatorEphemeral: ephemeral, initiator: initiator,
                responder: identity.publicKey))
        let header = Packet.responseHeader(senderIndex: index, receiverIndex: senderIndex, ephemeral: own.publicKey)
        let sealedSignature = keys.send.seal(responseSignature.rawRepresentation, counter: 0, associatedData: header)
        install(
            Session(
                peer: initiator, localIndex: index, remoteIndex: senderIndex, keys: keys, address: address,
                establishedAt: now))
        return (initiator, Datagram(address: address, bytes: header + sealedSignature))
    }

    /// Initiator side: checks the responder's signature and installs the session.
    public mutating func handleResponse(
        senderIndex: UInt32, receiverIndex: UInt32, ephemeral: AgreementPublicKey, sealed: [UInt8],
        from address: PeerAddress, now: Duration
    ) throws(ProtocolRejection) -> PeerID {
        guard let initiation = initiations[receiverIndex] else { throw .unknownSession }
        let keys: SessionKeys
        do { keys = try initiation.ephemeral.sessionKeys(initiator: true, peer: ephemeral) } catch {
            throw .decryptFailed
        }
        let header = Packet.responseHeader(senderIndex: senderIndex, receiverIndex: receiverIndex, ephemeral: ephemeral)
        let signatureBytes: [UInt8]
        do { signatureBytes = try keys.receive.open(sealed, counter: 0, associatedData: header) } catch {
            throw .decryptFailed
        }
        guard let signature = try? ParleyCrypto.Signature(rawRepresentation: signatureBytes) else { throw .malformed }
        do {
            try initiation.peer.verify(
                signature,
                for: Transcript.handshakeResponse(
                    responderEphemeral: ephemeral, initiatorEphemeral: initiation.ephemeral.publicKey,
                    initiator: identity.publicKey, responder: initiation.peer))
        } catch { throw .badSignature }
        initiations[receiverIndex] = nil
        // A late answer to an older attempt only joins the receive-side sessions: the responder
        // answered the newer attempt after it, so that session is the one both sides keep longest.
        let superseded = newestCompletedInitiation[initiation.peer].map { $0 > initiation.startedAt } ?? false
        if !superseded { newestCompletedInitiation[initiation.peer] = initiation.startedAt }
        install(
            Session(
                peer: initiation.peer, localIndex: receiverIndex, remoteIndex: senderIndex, keys: keys,
                address: address, establishedAt: now),
            current: !superseded)
        return initiation.peer
    }

    /// Seals `plaintext` for the peer's current session; nil when there is none yet.
    public mutating func seal(_ plaintext: [UInt8], for peer: PeerID) -> Datagram? {
        // Mutated in place through the subscript: a copy would also copy the replay window's storage.
        guard let index = current[peer], let address = sessions[index]?.address,
            let bytes = sessions[index]?.seal(plaintext)
        else { return nil }
        return Datagram(address: address, bytes: bytes)
    }

    /// Opens a data packet; the peer's address follows its latest authenticated packet.
    public mutating func open(
        receiverIndex: UInt32, counter: UInt64, sealed: [UInt8], from address: PeerAddress, now: Duration
    ) throws(ProtocolRejection) -> (peer: PeerID, plaintext: [UInt8]) {
        // Its fields read one by one: a copy of the session, alive while it is changed in place below,
        // would make that change copy the replay window for every datagram.
        guard let peer = sessions[receiverIndex]?.peer, let establishedAt = sessions[receiverIndex]?.establishedAt
        else { throw .unknownSession }
        // However used, no session lives past two rekey periods: a stolen session key must expire.
        guard now - establishedAt <= configuration.rekeyAfter * 2 else {
            sessions[receiverIndex] = nil
            if current[peer] == receiverIndex { current[peer] = nil }
            throw .unknownSession
        }
        // In place, as in `seal` (the guard above found the session, so the chaining always reaches it).
        guard let plaintext = try sessions[receiverIndex]?.open(counter: counter, sealed: sealed) else {
            throw .unknownSession
        }
        sessions[receiverIndex]?.address = address
        sessions[receiverIndex]?.lastHeardAt = now
        lastHeard[peer] = now
        lastAddress[peer] = address
        return (peer, plaintext)
    }

    /// Drops a peer's sessions, e.g. when it is known to have restarted.
    public mutating func forget(_ peer: PeerID) {
        sessions = sessions.filter { $0.value.peer != peer }
        current[peer] = nil
        lastHeard[peer] = nil
        lastAddress[peer] = nil
        newestCompletedInitiation[peer] = nil
    }

    /// Keeps the current session and at most `olderSessionsPerPeer` older ones. Each side picks its
    /// current session on its own, and crossing or retried handshakes make several at once: the other
    /// side may still send on any of them, so some are kept for receiving. The one dropped is the one
    /// heard from longest ago: a session the peer keeps sending on survives any number of newer ones,
    /// but none older than two rekey periods (a stolen session key must not stay useful by use).
    private mutating func install(_ session: Session, current makeCurrent: Bool = true) {
        sessions[session.localIndex] = session
        if session.establishedAt >= lastHeard[session.peer] ?? .zero {
            lastHeard[session.peer] = session.establishedAt
            lastAddress[session.peer] = session.address
        }
        if makeCurrent || current[session.peer] == nil { current[session.peer] = session.localIndex }
        let older = sessions.values.filter { $0.peer == session.peer && $0.localIndex != current[session.peer] }
            .sorted { $0.lastHeardAt > $1.lastHeardAt }
        let expired = older.filter { session.establishedAt - $0.establishedAt > configuration.rekeyAfter * 2 }
        for stale in older.dropFirst(configuration.olderSessionsPerPeer) + expired { sessions[stale.localIndex] = nil }
        if current.count > configuration.maxPeers,
            let oldest = current.keys.filter({ $0 != session.peer })
                .min(by: {
                    (self.session(for: $0)?.establishedAt ?? .zero) < (self.session(for: $1)?.establishedAt ?? .zero)
                })
        {
            forget(oldest)
        }
    }

    private mutating func pruneSeenEphemerals(now: Duration) {
        let horizon = Duration.milliseconds(2 * configuration.freshnessMillis)
        if seenEphemerals.count > 1024 { seenEphemerals = seenEphemerals.filter { now - $0.value < horizon } }
    }

    private func freshIndex() -> UInt32 {
        while true {
            let bytes = secureRandomBytes(count: 4)
            let index = bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            if index != 0, sessions[index] == nil, initiations[index] == nil { return index }
        }
    }
}
