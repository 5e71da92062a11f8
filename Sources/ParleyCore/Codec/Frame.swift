import NIOCore
public import ParleyCrypto

/// What travels inside an encrypted data packet; a packet carries one or more frames.
public enum Frame: Sendable, Hashable {
    /// A signed message (its full wire encoding).
    case message([UInt8])
    /// "These messages are durably stored here."
    case ack([MessageID])
    /// A chat's signed invite.
    case invite([UInt8])
    case inviteAck(ChatID)
    /// Anti-entropy: what the sender holds of each author's messages in a chat.
    case syncRequest(chat: ChatID, vector: [PeerID: AuthorHoldings])
    /// Ends a sync reply: done, `more` (ask again), or `nothingMissing` (the replier holds exactly the
    /// request's vector, so the reply carried no message).
    case syncEnd(chat: ChatID, SyncEnd)
    /// "Send me this chat's invite": a message arrived for a chat this peer does not know.
    case needInvite(ChatID)
    /// A signed heartbeat: the sender is here, or leaving. Never stored.
    case presence(PresenceBeat)
    /// The sender is typing in a chat (or stopped). Ephemeral: never stored, expires unless refreshed.
    case typing(chat: ChatID, active: Bool)
    /// "I have read these messages of yours in this chat": a read receipt, resent until `readAck`.
    case read(chat: ChatID, ids: [MessageID])
    /// "Your read receipts for these messages are recorded here."
    case readAck([MessageID])
    /// A sealed `BallotEnvelope` on its way to `publisher`: the receiver holds it `holdMillis` (its
    /// voter asks until the poll's closing time) and then forwards it there, or opens it if it is the
    /// publisher (docs/BALLOTS.md §4).
    case ballotRelay(publisher: PeerID, holdMillis: UInt32, sealed: [UInt8])
    /// "Introduce me to this member": the receiver, a member sharing a chat with both, tells each the
    /// other's observed address (PROTOCOL.md §12a).
    case meetRequest(PeerID)
    /// From a member sharing a chat with both, answering this node's `meetRequest`: `peer` was last
    /// heard from at `address`; open this node's NAT toward it (PROTOCOL.md §12a).
    case meet(peer: PeerID, address: PeerAddress)
    /// From a member sharing a chat with both: `peer` asked it to meet this node and was last heard
    /// from at `address`, where `peer` is opening its NAT toward this node; handshake there.
    case meetAsked(peer: PeerID, address: PeerAddress)
    /// Beside each `syncRequest`: the id held at each author's highest sequence and the forks proven
    /// here, so that two members holding different messages for one slot find out (PROTOCOL.md §10).
    case chainTops(chat: ChatID, ChainTops)
    /// A `ForkProof`'s encoding: an author signed two histories (PROTOCOL.md §4.4).
    case forkProof([UInt8])
    /// "Send me these pieces of these chunks of this file" (PROTOCOL.md §13e): a fetcher to a member
    /// holding the whole file.
    case fileWant(file: MessageID, wants: [ChunkWant])
    /// A piece of a sealed chunk envelope, answering a `fileWant`.
    case filePiece(FilePiece)
    /// "I serve no chunk of this file to you": the holder has not the whole file, or the asker is not a
    /// member of its chat now. The fetcher asks it nothing more for the file.
    case fileLack(file: MessageID)

    enum Kind: UInt8 {
        case message = 1, ack, invite, inviteAck, syncRequest, syncEnd, needInvite, presence, typing
        case read = 10, readAck = 11, ballotRelay = 12, meetRequest = 13, meet = 14, chainTops = 15, forkProof = 16
        case fileWant = 17, filePiece = 18, fileLack = 19, meetAsked = 20
    }

    /// Frame header: type (1 byte) and body length (4 bytes).
    public static let headerBytes = 5
    public static let maxAcksPerFrame = 1024
    /// A sealed envelope: the largest padded plaintext and the sealed box's 48 bytes.
    public static let maxSealedBallotBytes = BallotEnvelope.maxPlaintextBytes + 48

    public var encodedCount: Int { Self.headerBytes + bodyCount }

    private var bodyCount: Int {
        switch self {
        case let .message(bytes), let .invite(bytes), let .forkProof(bytes): bytes.count
        case let .chainTops(_, tops): 32 + tops.encodedCount
        case let .ack(ids), let .readAck(ids): ids.count * 32
        case let .read(_, ids): 32 + ids.count * 32
        case .inviteAck, .needInvite: 32
        case let .syncRequest(_, vector): 32 + 2 + vector.values.reduce(0) { $0 + 32 + $1.encodedCount }
        case .syncEnd, .typing: 33
        case .presence: PresenceBeat.encodedCount
        case let .ballotRelay(_, _, sealed): 32 + 4 + sealed.count
        case .meetRequest: 32
        case let .meet(_, address), let .meetAsked(_, address): 32 + 1 + address.description.utf8.count
        case let .fileWant(_, wants): 32 + wants.count * ChunkWant.encodedCount
        case let .filePiece(piece): 32 + 4 + 2 + piece.bytes.count
        case .fileLack: 32
        }
    }

    func write(to buffer: inout ByteBuffer) {
        switch self {
        case let .message(bytes): header(.message, &buffer); buffer.writeBytes(bytes)
        case let .invite(bytes): header(.invite, &buffer); buffer.writeBytes(bytes)
        case let .forkProof(bytes): header(.forkProof, &buffer); buffer.writeBytes(bytes)
        case let .chainTops(chat, tops):
            header(.chainTops, &buffer)
            buffer.writeBytes32(chat.bytes)
            tops.write(to: &buffer)
        case let .ack(ids):
            header(.ack, &buffer)
            for id in ids { buffer.writeBytes32(id.bytes) }
        case let .inviteAck(chat): header(.inviteAck, &buffer); buffer.writeBytes32(chat.bytes)
        case let .needInvite(chat): header(.needInvite, &buffer); buffer.writeBytes32(chat.bytes)
        case let .syncRequest(chat, vector):
            header(.syncRequest, &buffer)
            buffer.writeBytes32(chat.bytes)
            buffer.writeVersionVector(vector)
        case let .read(chat, ids):
            header(.read, &buffer)
            buffer.writeBytes32(chat.bytes)
            for id in ids { buffer.writeBytes32(id.bytes) }
        case let .readAck(ids):
            header(.readAck, &buffer)
            for id in ids { buffer.writeBytes32(id.bytes) }
        case let .syncEnd(chat, end):
            header(.syncEnd, &buffer)
            buffer.writeBytes32(chat.bytes)
            buffer.writeInteger(end.rawValue)
        case let .presence(beat): header(.presence, &buffer); beat.write(to: &buffer)
        case let .ballotRelay(publisher, hold, sealed):
            header(.ballotRelay, &buffer)
            buffer.writeBytes32(publisher.bytes)
            buffer.writeInteger(hold, endianness: .big)
            buffer.writeBytes(sealed)
        case let .typing(chat, active):
            header(.typing, &buffer)
            buffer.writeBytes32(chat.bytes)
            buffer.writeInteger(UInt8(active ? 1 : 0))
        case let .meetRequest(peer): header(.meetRequest, &buffer); buffer.writeBytes32(peer.bytes)
        case let .meet(peer, address):
            header(.meet, &buffer)
            buffer.writeBytes32(peer.bytes)
            buffer.writeShortString(address.description)
        case let .meetAsked(peer, address):
            header(.meetAsked, &buffer)
            buffer.writeBytes32(peer.bytes)
            buffer.writeShortString(address.description)
        case let .fileWant(file, wants):
            header(.fileWant, &buffer)
            buffer.writeBytes32(file.bytes)
            for want in wants {
                buffer.writeInteger(want.chunk, endianness: .big)
                buffer.writeInteger(want.pieces, endianness: .big)
            }
        case let .filePiece(piece):
            header(.filePiece, &buffer)
            buffer.writeBytes32(piece.file.bytes)
            buffer.writeInteger(piece.chunk, endianness: .big)
            buffer.writeInteger(piece.piece)
            buffer.writeInteger(piece.pieces)
            buffer.writeBytes(piece.bytes)
        case let .fileLack(file): header(.fileLack, &buffer); buffer.writeBytes32(file.bytes)
        }
    }

    private func header(_ kind: Kind, _ buffer: inout ByteBuffer) {
        buffer.writeInteger(kind.rawValue)
        buffer.writeInteger(UInt32(bodyCount), endianness: .big)
    }

    public static func encode(_ frames: [Frame]) -> [UInt8] {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(frames.reduce(0) { $0 + $1.encodedCount })
        for frame in frames { frame.write(to: &buffer) }
        return Array(buffer.readableBytesView)
    }

    /// Decodes every frame of a packet; any malformed frame rejects the whole packet.
    public static func decodeAll(_ bytes: [UInt8]) throws(CoreError) -> [Frame] {
        var buffer = ByteBuffer(bytes: bytes)
        var frames: [Frame] = []
        while buffer.readableBytes > 0 {
            let rawKind = try buffer.readU8("frame type")
            let length = Int(try buffer.readU32("frame length"))
            var body = try buffer.readSlice(exactly: length, "frame body") // no copy
            guard let kind = Kind(rawValue: rawKind) else { throw .malformed("unknown frame type \(rawKind)") }
            frames.append(try decode(kind, &body))
            try body.expectFullyRead("frame")
        }
        return frames
    }

    private static func decode(_ kind: Kind, _ body: inout ByteBuffer) throws(CoreError) -> Frame {
        switch kind {
        case .message: return .message(try body.readExactly(body.readableBytes, "message"))
        case .invite: return .invite(try body.readExactly(body.readableBytes, "invite"))
        case .forkProof: return .forkProof(try body.readExactly(body.readableBytes, "fork proof"))
        case .chainTops:
            let chat = try body.readDigest("chat")
            return .chainTops(chat: chat, try ChainTops(reading: &body))
        case .ack: return .ack(try readIDs(&body, "ack"))
        case .read:
            let chat = try body.readDigest("chat")
            let ids = try readIDs(&body, "read receipt")
            guard !ids.isEmpty else { throw .malformed("a read receipt names no message") }
            return .read(chat: chat, ids: ids)
        case .readAck: return .readAck(try readIDs(&body, "read ack"))
        case .inviteAck: return .inviteAck(try body.readDigest("chat"))
        case .needInvite: return .needInvite(try body.readDigest("chat"))
        case .syncRequest:
            let chat = try body.readDigest("chat")
            return .syncRequest(chat: chat, vector: try body.readVersionVector())
        case .syncEnd:
            let chat = try body.readDigest("chat")
            let raw = try body.readU8("sync end")
            guard let end = SyncEnd(rawValue: raw) else { throw .malformed("unknown sync end \(raw)") }
            return .syncEnd(chat: chat, end)
        case .presence: return .presence(try PresenceBeat(reading: &body))
        case .typing:
            let chat = try body.readDigest("chat")
            let active = try body.readU8("typing state")
            guard active <= 1 else { throw .malformed("typing state \(active) is neither 0 nor 1") }
            return .typing(chat: chat, active: active == 1)
        case .ballotRelay:
            let publisher = try body.readPeer("publisher")
            let hold = try body.readU32("relay hold")
            guard (48...maxSealedBallotBytes).contains(body.readableBytes) else {
                throw .malformed("sealed ballot envelope length")
            }
            return .ballotRelay(
                publisher: publisher, holdMillis: hold,
                sealed: try body.readExactly(body.readableBytes, "sealed ballot envelope"))
        case .meetRequest: return .meetRequest(try body.readPeer("peer"))
        case .meet:
            let (peer, address) = try readIntroduction(&body)
            return .meet(peer: peer, address: address)
        case .meetAsked:
            let (peer, address) = try readIntroduction(&body)
            return .meetAsked(peer: peer, address: address)
        case .fileWant:
            let file = try body.readDigest("file")
            guard body.readableBytes % ChunkWant.encodedCount == 0,
                (1...ChunkWant.maxPerFrame).contains(body.readableBytes / ChunkWant.encodedCount)
            else { throw .malformed("file want frame length") }
            var wants: [ChunkWant] = []
            while body.readableBytes > 0 {
                let chunk = try body.readU32("chunk")
                let pieces = try body.readU64("piece mask")
                guard pieces != 0 else { throw .malformed("a file want names no piece") }
                wants.append(ChunkWant(chunk: chunk, pieces: pieces))
            }
            return .fileWant(file: file, wants: wants)
        case .filePiece:
            let file = try body.readDigest("file")
            let chunk = try body.readU32("chunk")
            let piece = try body.readU8("piece")
            let pieces = try body.readU8("piece count")
            guard pieces >= 1, Int(pieces) <= ChunkPieces.maxPieces, piece < pieces,
                (1...ChunkPieces.pieceBytes).contains(body.readableBytes)
            else { throw .malformed("file piece \(piece) of \(pieces), \(body.readableBytes) bytes") }
            return .filePiece(
                FilePiece(
                    file: file, chunk: chunk, piece: piece, pieces: pieces,
                    bytes: try body.readExactly(body.readableBytes, "piece")))
        case .fileLack: return .fileLack(file: try body.readDigest("file"))
        }
    }
}

extension Frame {
    /// The rest of a frame body as message ids: at most `maxAcksPerFrame`.
    private static func readIDs(_ body: inout ByteBuffer, _ what: String) throws(CoreError) -> [MessageID] {
        guard body.readableBytes % 32 == 0, body.readableBytes / 32 <= maxAcksPerFrame else {
            throw .malformed("\(what) frame length")
        }
        var ids: [MessageID] = []
        while body.readableBytes > 0 { ids.append(try body.readDigest("\(what) id")) }
        return ids
    }

    /// The body of `meet` and `meetAsked`: a member and the address it was heard from, which must be
    /// a literal unicast IP in its one spelling, never a name (a member must not make us resolve names
    /// for it), and a real port.
    private static func readIntroduction(_ body: inout ByteBuffer) throws(CoreError) -> (PeerID, PeerAddress) {
        let peer = try body.readPeer("peer")
        let text = try body.readShortString("address")
        let address = try PeerAddress(parsing: text)
        guard address.isNumeric, address.description == text, address.port != 0 else {
            throw .malformed("meet address \(text) is not a numeric IP address and port")
        }
        return (peer, address)
    }
}

extension Frame {
    /// Plaintext budget per datagram: fits a 1500-byte Ethernet MTU with IP/UDP/packet overhead.
    public static let datagramBudget = 1_200

    /// Packs frames into as few packet plaintexts as fit the budget; a larger frame travels alone
    /// (up to `Packet.maxDatagramBytes`, left to IP fragmentation).
    public static func pack(_ frames: [Frame]) -> [[UInt8]] {
        var packets: [[UInt8]] = []
        var pending: [Frame] = []
        var size = 0
        for frame in frames {
            if size + frame.encodedCount > datagramBudget, !pending.isEmpty {
                packets.append(encode(pending))
                pending.removeAll(keepingCapacity: true)
                size = 0
            }
            pending.append(frame)
            size += frame.encodedCount
        }
        if !pending.isEmpty { packets.append(encode(pending)) }
        return packets
    }
}

/// How a sync reply ends (frame 6's last byte).
public enum SyncEnd: UInt8, Sendable, Hashable {
    /// Everything the requester lacked that the replier holds was sent.
    case done = 0
    /// The batch was full: the requester asks again.
    case more = 1
    /// The replier's vector equals the request's (so the reply carried no message). The requester
    /// then knows the replier needs no asking until its own vector changes, which makes a converged
    /// chat quiet in both directions, not only in the one that asked last.
    case nothingMissing = 2
}

extension Frame {
    /// How a fork proof reaches a member: as one `forkProof` frame when it fits a datagram, else as
    /// its branches' messages, from which the member makes the proof itself (PROTOCOL.md §4.4).
    public static func forkEvidence(_ proof: ForkProof) -> [Frame] {
        proof.encoded.count <= ForkProof.maxEncodedBytes
            ? [.forkProof(proof.encoded)] : (proof.first + proof.second).map { .message($0.encoded) }
    }

    /// The same from a proof's encoding, checked when it was kept: only one too large for a datagram
    /// is decoded (to split it into its messages), so serving proofs costs no signature checks.
    public static func forkEvidence(encoded: [UInt8]) -> [Frame] {
        guard encoded.count > ForkProof.maxEncodedBytes else { return [.forkProof(encoded)] }
        return (try? ForkProof(decoding: encoded)).map(forkEvidence) ?? []
    }
}
