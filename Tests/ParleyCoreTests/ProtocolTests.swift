import ParleyCore
import ParleyCrypto
import Testing

struct ReplayWindowTests {
    @Test func acceptsEachCounterOnceAndRejectsTooOldOnes() {
        var window = ReplayWindow()
        var accepted: Bool
        accepted = window.accept(1)
        #expect(accepted)
        accepted = window.accept(1)
        #expect(!accepted)
        accepted = window.accept(3)
        #expect(accepted)
        accepted = window.accept(2)
        #expect(accepted) // reordered but new
        accepted = window.accept(2)
        #expect(!accepted)
        accepted = window.accept(5000)
        #expect(accepted)
        accepted = window.accept(5000 - ReplayWindow.size)
        #expect(!accepted) // fell behind the window
        accepted = window.accept(5000 - ReplayWindow.size + 1)
        #expect(accepted)
    }
}

struct HandshakeTests {
    let alice = Fixtures.alice, bob = Fixtures.bob
    let aliceAddress = PeerAddress(host: "10.0.0.1", port: 1), bobAddress = PeerAddress(host: "10.0.0.2", port: 2)

    /// Runs a full handshake and returns both tables.
    func handshake() throws -> (SessionTable, SessionTable) {
        var a = SessionTable(identity: alice)
        var b = SessionTable(identity: bob)
        let initDatagram = try a.initiate(with: bob.publicKey, at: bobAddress, now: .zero, wallMillis: 1_000)
        guard case let .handshakeInit(index, ephemeral, sealed) = try Packet(decoding: initDatagram.bytes) else {
            Issue.record("not an init"); return (a, b)
        }
        let (peer, response) = try b.handleInit(
            senderIndex: index, ephemeral: ephemeral, sealed: sealed, from: aliceAddress, now: .zero, wallMillis: 1_000)
        #expect(peer == alice.publicKey)
        guard
            case let .handshakeResponse(sender, receiver, responderEphemeral, sealedSignature) = try Packet(
                decoding: response.bytes)
        else {
            Issue.record("not a response"); return (a, b)
        }
        let responder = try a.handleResponse(
            senderIndex: sender, receiverIndex: receiver, ephemeral: responderEphemeral, sealed: sealedSignature,
            from: bobAddress, now: .zero)
        #expect(responder == bob.publicKey)
        return (a, b)
    }

    @Test func establishesASessionBothWaysAndRejectsReplays() throws {
        var (a, b) = try handshake()
        let sealedByAlice = a.seal(Frame.encode([.needInvite(Fixtures.invite.id)]), for: bob.publicKey)
        let datagram = try #require(sealedByAlice)
        guard case let .data(index, counter, sealed) = try Packet(decoding: datagram.bytes) else {
            Issue.record("not data"); return
        }
        let opened = try b.open(receiverIndex: index, counter: counter, sealed: sealed, from: aliceAddress, now: .zero)
        #expect(opened.peer == alice.publicKey)
        #expect(try Frame.decodeAll(opened.plaintext) == [.needInvite(Fixtures.invite.id)])
        #expect(throws: ProtocolRejection.replayed) {
            try b.open(receiverIndex: index, counter: counter, sealed: sealed, from: aliceAddress, now: .zero)
        }
        var tampered = sealed
        tampered[0] ^= 1
        #expect(throws: ProtocolRejection.decryptFailed) {
            try b.open(receiverIndex: index, counter: counter + 1, sealed: tampered, from: aliceAddress, now: .zero)
        }
        let sealedByBob = b.seal(Frame.encode([.inviteAck(Fixtures.invite.id)]), for: alice.publicKey)
        let reply = try #require(sealedByBob)
        guard case let .data(i2, c2, s2) = try Packet(decoding: reply.bytes) else { Issue.record("not data"); return }
        #expect(
            try a.open(receiverIndex: i2, counter: c2, sealed: s2, from: bobAddress, now: .zero).peer == bob.publicKey)
    }

    @Test func aSessionThePeerKeepsSendingOnOutlivesAnyNumberOfNewerHandshakes() throws {
        // Given alice and bob share a session, and alice sends on it
        var (a, b) = try handshake()
        func aliceSends(at now: Duration) throws -> Bool {
            let sealedByAlice = a.seal(Frame.encode([.needInvite(Fixtures.invite.id)]), for: bob.publicKey)
            let datagram = try #require(sealedByAlice)
            guard case let .data(index, counter, sealed) = try Packet(decoding: datagram.bytes) else { return false }
            return (try? b.open(receiverIndex: index, counter: counter, sealed: sealed, from: aliceAddress, now: now))
                != nil
        }
        // When bob answers 24 more attempts of alice's whose answers never reach her, while she goes on
        // sending on the session she has
        var other = SessionTable(identity: alice)
        var installed: [UInt32] = []
        for second in 1...24 {
            installed.append(try answer(&b, attemptOf: &other, at: .seconds(second)))
            // Then bob still hears her on it
            #expect(try aliceSends(at: .seconds(second) + .milliseconds(500)))
        }
        // and the sessions nobody sent on are the ones dropped: 16 older ones are kept, no more
        #expect(installed.prefix(8).allSatisfy { !b.holdsSession(index: $0) })
        #expect(installed.dropFirst(8).allSatisfy { b.holdsSession(index: $0) })

        // But no session outlives two rekey periods by being used: a stolen key stops working
        _ = try aliceSends(at: .seconds(1_190))
        _ = try answer(&b, attemptOf: &other, at: .seconds(1_230))
        #expect(try !aliceSends(at: .seconds(1_231)))
    }

    /// Bob answers a handshake attempt of `initiator`'s (whose answer is lost); returns the index of
    /// the session bob installed.
    func answer(_ b: inout SessionTable, attemptOf initiator: inout SessionTable, at now: Duration) throws -> UInt32 {
        let initDatagram = try initiator.initiate(with: bob.publicKey, at: bobAddress, now: now, wallMillis: 1_000)
        guard case let .handshakeInit(index, ephemeral, sealed) = try Packet(decoding: initDatagram.bytes) else {
            throw CoreError.malformed("not an init")
        }
        let response = try b.handleInit(
            senderIndex: index, ephemeral: ephemeral, sealed: sealed, from: aliceAddress, now: now, wallMillis: 1_000
        ).response
        guard case let .handshakeResponse(sender, _, _, _) = try Packet(decoding: response.bytes) else {
            throw CoreError.malformed("not a response")
        }
        return sender
    }

    @Test func aLateAnswerToAnOlderAttemptDoesNotReplaceTheNewerSession() throws {
        // Given alice retried her handshake with bob, and bob answered both attempts in order
        var a = SessionTable(identity: alice)
        var b = SessionTable(identity: bob)
        var responses: [Datagram] = []
        for start in [Duration.zero, .seconds(2)] {
            let initDatagram = try a.initiate(with: bob.publicKey, at: bobAddress, now: start, wallMillis: 1_000)
            guard case let .handshakeInit(index, ephemeral, sealed) = try Packet(decoding: initDatagram.bytes) else {
                Issue.record("not an init"); return
            }
            responses.append(
                try b.handleInit(
                    senderIndex: index, ephemeral: ephemeral, sealed: sealed, from: aliceAddress, now: start,
                    wallMillis: 1_000
                ).response)
        }
        // When the answers reach alice newest first
        for response in responses.reversed() {
            guard
                case let .handshakeResponse(sender, receiver, ephemeral, sealed) = try Packet(decoding: response.bytes)
            else {
                Issue.record("not a response"); return
            }
            _ = try a.handleResponse(
                senderIndex: sender, receiverIndex: receiver, ephemeral: ephemeral, sealed: sealed, from: bobAddress,
                now: .seconds(3))
        }
        // Then alice sends on the session bob installed last, which bob keeps longest
        #expect(a.session(for: bob.publicKey)?.remoteIndex == b.session(for: alice.publicKey)?.localIndex)
    }

    @Test func rejectsAReplayedOrStaleInitAndAnInitForSomeoneElse() throws {
        var a = SessionTable(identity: alice)
        var b = SessionTable(identity: bob)
        let initDatagram = try a.initiate(with: bob.publicKey, at: bobAddress, now: .zero, wallMillis: 1_000)
        guard case let .handshakeInit(index, ephemeral, sealed) = try Packet(decoding: initDatagram.bytes) else {
            Issue.record("not a handshake init")
            return
        }
        _ = try b.handleInit(
            senderIndex: index, ephemeral: ephemeral, sealed: sealed, from: aliceAddress, now: .zero, wallMillis: 1_000)
        #expect(throws: ProtocolRejection.replayed) {
            try b.handleInit(
                senderIndex: index, ephemeral: ephemeral, sealed: sealed, from: aliceAddress, now: .zero,
                wallMillis: 1_000)
        }
        var late = SessionTable(identity: bob)
        #expect(throws: ProtocolRejection.stale) {
            try late.handleInit(
                senderIndex: index, ephemeral: ephemeral, sealed: sealed, from: aliceAddress, now: .zero,
                wallMillis: 1_000 + 121_000)
        }
        var carol = SessionTable(identity: Fixtures.carol)
        #expect(throws: ProtocolRejection.decryptFailed) {
            try carol.handleInit(
                senderIndex: index, ephemeral: ephemeral, sealed: sealed, from: aliceAddress, now: .zero,
                wallMillis: 1_000)
        }
    }

    @Test func packetDecoderRejectsGarbageWithoutCrashing() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<300 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = try? Packet(decoding: bytes)
            _ = try? Frame.decodeAll(bytes)
            _ = try? Message(decoding: bytes)
        }
        #expect(throws: CoreError.unsupportedVersion(9)) { try Packet(decoding: [9, 3, 0, 0]) }
        #expect(throws: CoreError.self) { try Packet(decoding: [1, 3, 0, 0, 0, 1]) }
    }

    @Test func announcementsVerifyAndExpire() throws {
        guard case let .announce(peer, timestamp, signature) = Announcement.make(identity: alice, wallMillis: 10_000)
        else {
            Issue.record("not an announce")
            return
        }
        try Announcement.verify(peer: peer, timestampMillis: timestamp, signature: signature, wallMillis: 10_500)
        #expect(throws: ProtocolRejection.stale) {
            try Announcement.verify(
                peer: peer, timestampMillis: timestamp, signature: signature, wallMillis: 10_000 + 200_000)
        }
        // An extreme timestamp is stale, not an arithmetic trap (it is checked before the signature).
        #expect(throws: ProtocolRejection.stale) {
            try Announcement.verify(peer: peer, timestampMillis: .min, signature: signature, wallMillis: 10_000)
        }
        #expect(throws: ProtocolRejection.badSignature) {
            try Announcement.verify(
                peer: bob.publicKey, timestampMillis: timestamp, signature: signature, wallMillis: 10_000)
        }
    }
}

struct FramePackingTests {
    @Test func packsSmallFramesTogetherAndBigOnesAlone() throws {
        let small = Frame.ack([Fixtures.invite.id])
        let big = Frame.message([UInt8](repeating: 1, count: 5_000))
        let packets = Frame.pack([small, small, big, small])
        #expect(packets.count == 3)
        let decoded = try packets.flatMap { try Frame.decodeAll($0) }
        #expect(decoded == [small, small, big, small])
        #expect(packets.allSatisfy { $0.count <= Frame.datagramBudget || $0.count == big.encodedCount })
    }

    @Test func syncFramesRoundTrip() throws {
        let frames: [Frame] = [
            .syncRequest(
                chat: Fixtures.invite.id,
                vector: [
                    Fixtures.alice.publicKey: .contiguous(3),
                    Fixtures.bob.publicKey: try AuthorHoldings(highest: 9, missing: [2...4, 7...8]),
                ]),
            .syncEnd(chat: Fixtures.invite.id, .more),
            .syncEnd(chat: Fixtures.invite.id, .done),
            .syncEnd(chat: Fixtures.invite.id, .nothingMissing),
            .invite(Fixtures.invite.encoded),
        ]
        #expect(try Frame.decodeAll(Frame.encode(frames)) == frames)
        // The end byte is the frame's last: 0, 1 or 2; any other value is malformed
        #expect(Frame.encode([.syncEnd(chat: Fixtures.invite.id, .nothingMissing)]).last == 2)
        var unknown = Frame.encode([.syncEnd(chat: Fixtures.invite.id, .done)])
        unknown[unknown.count - 1] = 3
        #expect(throws: CoreError.self) { try Frame.decodeAll(unknown) }
    }
}
