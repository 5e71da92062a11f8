import ParleyCore
import ParleyCrypto
import Testing

/// Signed heartbeats, the presence state machine and the wire layout of frames 8 and 9.
struct PresenceTests {
    static let now: Int64 = 1_800_000_000_000

    static func beat(
        _ identity: Identity = Fixtures.bob, at wallMillis: Int64 = now, _ status: PresenceBeat.Status = .online,
        interval: Duration = .seconds(5)
    ) -> PresenceBeat {
        PresenceBeat.make(identity: identity, wallMillis: wallMillis, status: status, interval: interval)
    }

    static func table(tracking peers: [PeerID] = [Fixtures.bob.publicKey, Fixtures.carol.publicKey]) -> PresenceTable {
        var table = PresenceTable()
        table.track(Set(peers))
        return table
    }

    // MARK: Signed beats

    @Test func aBeatPassesOnItsOwnSessionWithinTheFreshnessWindow() throws {
        try Self.beat().checkOnOwnSession(from: Fixtures.bob.publicKey, wallMillis: Self.now + 119_000)
        try Self.beat(at: Self.now, .leaving).checkOnOwnSession(
            from: Fixtures.bob.publicKey, wallMillis: Self.now - 119_000)
    }

    @Test(arguments: [Self.now + 121_000, Self.now - 121_000, Int64.min, Int64.max])
    func aStaleBeatIsRejected(receiverClock: Int64) {
        #expect(throws: ProtocolRejection.stale) {
            try Self.beat().checkOnOwnSession(from: Fixtures.bob.publicKey, wallMillis: receiverClock)
        }
        #expect(throws: ProtocolRejection.stale) { try Self.beat().verifyRelayed(wallMillis: receiverClock) }
    }

    @Test func onItsOwnSessionABeatIsAuthenticatedByTheSessionAndItsSignatureIsLeftForRelays() throws {
        // A beat whose signature does not match what it says passes on bob's own session, whose keys
        // only bob holds; relayed, the same beat is refused
        let genuine = Self.beat(at: Self.now)
        let altered = PresenceBeat(
            peer: genuine.peer, wallMillis: genuine.wallMillis, status: .leaving, intervalMillis: 5_000,
            signature: genuine.signature)
        try altered.checkOnOwnSession(from: Fixtures.bob.publicKey, wallMillis: Self.now)
        #expect(throws: ProtocolRejection.badSignature) { try altered.verifyRelayed(wallMillis: Self.now) }
    }

    @Test func aBeatOnAnotherPeersSessionPassesOnlyTheRelayedChecks() throws {
        // Given bob's genuine beat, when mallory sends it on her own session, it is not hers
        #expect(throws: ProtocolRejection.badSignature) {
            try Self.beat().checkOnOwnSession(from: Fixtures.mallory.publicKey, wallMillis: Self.now)
        }
        // but as a relayed beat (PROTOCOL §12a) it is bob's, fresh and signed; stale or forged it is not
        try Self.beat().verifyRelayed(wallMillis: Self.now)
        #expect(throws: ProtocolRejection.stale) { try Self.beat().verifyRelayed(wallMillis: Self.now + 121_000) }
        let forged = PresenceBeat(
            peer: Fixtures.bob.publicKey, wallMillis: Self.now, status: .online, intervalMillis: 5_000,
            signature: Self.beat(Fixtures.mallory).signature)
        #expect(throws: ProtocolRejection.badSignature) { try forged.verifyRelayed(wallMillis: Self.now) }
    }

    @Test func aRelayedBeatShowsItsRelayerUntilThePeersOwnBeatOrTheTimeout() {
        var table = Self.table()
        let (bob, carol) = (Fixtures.bob.publicKey, Fixtures.carol.publicKey)
        table.record(Self.beat(at: Self.now), via: carol, now: .seconds(10))
        #expect(table.relayer(of: bob, now: .seconds(11)) == carol)
        #expect(table.relayer(of: bob, now: .seconds(22)) == nil) // offline: no relayer to show
        table.record(Self.beat(at: Self.now + 1), now: .seconds(12))
        #expect(table.status(of: bob, now: .seconds(13)) == .online && table.relayer(of: bob, now: .seconds(13)) == nil)
    }

    @Test func aForgedOrAlteredBeatIsRejectedWhenRelayed() throws {
        let genuine = Self.beat(at: Self.now)
        // Mallory signs a beat claiming to be bob
        let forged = PresenceBeat(
            peer: Fixtures.bob.publicKey, wallMillis: Self.now, status: .online, intervalMillis: 5_000,
            signature: Self.beat(Fixtures.mallory).signature)
        // A captured "online" beat turned into "leaving", moved in time, or stretched to keep bob online longer
        let flipped = PresenceBeat(
            peer: genuine.peer, wallMillis: genuine.wallMillis, status: .leaving, intervalMillis: 5_000,
            signature: genuine.signature)
        let moved = PresenceBeat(
            peer: genuine.peer, wallMillis: genuine.wallMillis + 1, status: .online, intervalMillis: 5_000,
            signature: genuine.signature)
        let stretched = PresenceBeat(
            peer: genuine.peer, wallMillis: genuine.wallMillis, status: .online, intervalMillis: 60_000,
            signature: genuine.signature)
        for beat in [forged, flipped, moved, stretched] {
            #expect(throws: ProtocolRejection.badSignature) { try beat.verifyRelayed(wallMillis: Self.now) }
        }
    }

    // MARK: PresenceTable

    @Test func aPeerIsOnlineUntilTheTimeoutPassesWithoutABeat() {
        var table = Self.table()
        let bob = Fixtures.bob.publicKey
        #expect(table.status(of: bob, now: .seconds(1)) == .offline(lastSeenWallMillis: nil))

        // When bob's beat arrives at t = 10 s
        let kept = table.record(Self.beat(), now: .seconds(10))
        #expect(kept)
        // Then he is online just before 22 s and offline from 22 s, last seen at the beat's time
        #expect(table.status(of: bob, now: .milliseconds(21_999)) == .online)
        #expect(table.status(of: bob, now: .seconds(22)) == .offline(lastSeenWallMillis: Self.now))
    }

    @Test func aRefreshKeepsThePeerOnline() {
        var table = Self.table()
        let bob = Fixtures.bob.publicKey
        table.record(Self.beat(at: Self.now), now: .seconds(0))
        table.record(Self.beat(at: Self.now + 5_000), now: .seconds(5))
        #expect(table.status(of: bob, now: .seconds(16)) == .online)
        #expect(table.status(of: bob, now: .seconds(17)) == .offline(lastSeenWallMillis: Self.now + 5_000))
    }

    @Test func aBeatAnnouncingALongerIntervalKeepsItsSenderOnlineForTwoIntervalsAndTwoSeconds() {
        var table = Self.table()
        let bob = Fixtures.bob.publicKey
        // Given bob in a large chat, beating every 15 s
        table.record(Self.beat(interval: .seconds(15)), now: .seconds(10))
        // Then he is online until 2 × 15 + 2 = 32 s after it, and offline from then
        #expect(table.status(of: bob, now: .milliseconds(41_999)) == .online)
        #expect(table.status(of: bob, now: .seconds(42)) == .offline(lastSeenWallMillis: Self.now))
    }

    @Test(arguments: [
        (0, Duration.seconds(5)), (33, .seconds(5)), (34, .milliseconds(5_100)), (99, .milliseconds(14_850)),
        (255, .milliseconds(38_250)), (1_000, .seconds(60)),
    ])
    func theBeatIntervalGrowsWithThePeersSoWhatOneNodeReceivesStaysBounded(peers: Int, interval: Duration) {
        #expect(PresenceSchedule.interval(peers: peers, minimum: .seconds(5)) == interval)
    }

    @Test(arguments: [
        (Int64(1_800_000_000_000), Duration.seconds(5), Duration.seconds(5)),
        (1_800_000_003_000, .seconds(5), .seconds(2)),
        (1_800_000_004_999, .seconds(5), .milliseconds(1)),
        (1_800_000_000_001, .milliseconds(14_850), .milliseconds(11_699)),
        (-1, .seconds(5), .milliseconds(1)),
    ])
    func beatsFallOnWallClockMultiplesOfTheIntervalSoEveryonesArriveTogether(
        wallMillis: Int64, interval: Duration, delay: Duration
    ) {
        #expect(PresenceSchedule.delay(untilNextBeatAfter: wallMillis, interval: interval) == delay)
    }

    @Test(arguments: [
        (Duration.milliseconds(10), UInt32(1_000)), (.seconds(5), 5_000), (.seconds(3_600), 60_000),
        (.seconds(-1), 1_000),
    ])
    func aBeatClampsItsIntervalIntoTheRangeEveryReceiverAccepts(interval: Duration, millis: UInt32) throws {
        let beat = Self.beat(interval: interval)
        #expect(beat.intervalMillis == millis)
        #expect(try Frame.decodeAll(Frame.encode([.presence(beat)])) == [.presence(beat)])
    }

    @Test func aLeavingBeatShowsThePeerOfflineAtOnceAndAnOlderBeatCannotUndoIt() {
        var table = Self.table()
        let bob = Fixtures.bob.publicKey
        table.record(Self.beat(at: Self.now), now: .seconds(0))
        // When bob leaves at the same millisecond as his last beat
        let kept2 = table.record(Self.beat(at: Self.now, .leaving), now: .seconds(1))
        #expect(kept2)
        #expect(table.status(of: bob, now: .seconds(1)) == .offline(lastSeenWallMillis: Self.now))
        // Then a delayed older beat, or the same online beat again, does not bring him back
        let kept3 = table.record(Self.beat(at: Self.now - 1), now: .seconds(2))
        #expect(!kept3)
        let kept4 = table.record(Self.beat(at: Self.now), now: .seconds(2))
        #expect(!kept4)
        #expect(table.status(of: bob, now: .seconds(2)) == .offline(lastSeenWallMillis: Self.now))
        // And a newer beat (bob restarted) shows him online again
        let kept5 = table.record(Self.beat(at: Self.now + 1), now: .seconds(3))
        #expect(kept5)
        #expect(table.status(of: bob, now: .seconds(3)) == .online)
    }

    @Test func trafficShowsAPeerOnlineForABeatsTimeoutAndLastSeenWhenHeardThoughItNeverBeat() {
        var table = Self.table()
        let bob = Fixtures.bob.publicKey
        // When bob's session brings a datagram at t = 10 s, before any beat of his
        let kept = table.recordHeard(bob, wallMillis: Self.now, at: .seconds(10))
        #expect(kept)
        // Then he is online for the timeout of a 5 s beat (12 s), then last seen when he was heard
        #expect(table.status(of: bob, now: .milliseconds(21_999)) == .online)
        #expect(table.relayer(of: bob, now: .seconds(21)) == nil)
        #expect(table.status(of: bob, now: .seconds(22)) == .offline(lastSeenWallMillis: Self.now))
    }

    @Test func trafficNewerThanAnExpiredBeatKeepsThePeerOnlineAndSetsItsLastSeen() {
        var table = Self.table()
        let bob = Fixtures.bob.publicKey
        table.record(Self.beat(at: Self.now, interval: .seconds(15)), now: .seconds(0))
        table.recordHeard(bob, wallMillis: Self.now + 40_000, at: .seconds(40))
        // The beat's own timeout (32 s) is past; the traffic is measured against it too
        #expect(table.status(of: bob, now: .milliseconds(71_999)) == .online)
        #expect(table.status(of: bob, now: .seconds(72)) == .offline(lastSeenWallMillis: Self.now + 40_000))
    }

    @Test func aGoodbyeOutweighsTrafficUntilANewerOnlineBeat() {
        var table = Self.table()
        let bob = Fixtures.bob.publicKey
        table.record(Self.beat(at: Self.now, .leaving), now: .seconds(1))
        // When a datagram he sent before his goodbye arrives after it
        table.recordHeard(bob, wallMillis: Self.now + 2_000, at: .seconds(2))
        // Then he stays offline, and comes back only with a newer online beat
        #expect(table.status(of: bob, now: .seconds(2)) == .offline(lastSeenWallMillis: Self.now + 2_000))
        table.record(Self.beat(at: Self.now + 3_000), now: .seconds(3))
        #expect(table.status(of: bob, now: .seconds(3)) == .online)
    }

    @Test func relayedTrafficShowsItsRelayerUntilThePeersOwnSessionIsHeard() {
        var table = Self.table()
        let (bob, carol) = (Fixtures.bob.publicKey, Fixtures.carol.publicKey)
        table.recordHeard(bob, wallMillis: Self.now, via: carol, at: .seconds(5))
        #expect(table.status(of: bob, now: .seconds(5)) == .online && table.relayer(of: bob, now: .seconds(5)) == carol)
        // Relayed traffic as old as the peer's own does not displace it
        table.recordHeard(bob, wallMillis: Self.now + 1_000, at: .seconds(6))
        let keptRelayed = table.recordHeard(bob, wallMillis: Self.now + 1_000, via: carol, at: .seconds(6))
        #expect(!keptRelayed)
        #expect(table.relayer(of: bob, now: .seconds(6)) == nil)
    }

    @Test func onlyTrackedPeersAreKeptAndUntrackingForgetsThem() {
        var table = Self.table(tracking: [Fixtures.bob.publicKey])
        let kept6 = table.record(Self.beat(Fixtures.mallory), now: .seconds(0))
        #expect(!kept6)
        #expect(table.status(of: Fixtures.mallory.publicKey, now: .seconds(0)) == .offline(lastSeenWallMillis: nil))

        let keptStranger = table.recordHeard(Fixtures.mallory.publicKey, wallMillis: Self.now, at: .seconds(0))
        #expect(!keptStranger)
        #expect(table.status(of: Fixtures.mallory.publicKey, now: .seconds(0)) == .offline(lastSeenWallMillis: nil))

        table.record(Self.beat(), now: .seconds(0))
        table.recordHeard(Fixtures.bob.publicKey, wallMillis: Self.now, at: .seconds(0))
        table.track([Fixtures.carol.publicKey]) // bob no longer shares a chat
        #expect(table.status(of: Fixtures.bob.publicKey, now: .seconds(0)) == .offline(lastSeenWallMillis: nil))
    }

    // MARK: Codec

    @Test func presenceFrameLayoutIsPeerTimeStatusIntervalSignatureOverTheDocumentedTranscript() throws {
        let beat = Self.beat(at: 0x0102_0304_0506_0708, .leaving, interval: .milliseconds(14_850))
        let bytes = Frame.encode([.presence(beat)])
        let peer = Fixtures.bob.publicKey.rawRepresentation
        #expect(bytes.count == 5 + 109)
        #expect(Array(bytes[0..<5]) == [8, 0, 0, 0, 109])
        #expect(Array(bytes[5..<37]) == peer)
        #expect(Array(bytes[37..<45]) == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(bytes[45] == 2)
        #expect(Array(bytes[46..<50]) == [0x00, 0x00, 0x3A, 0x02]) // 14,850 ms
        let signature = try Signature(rawRepresentation: bytes[50...])
        let transcript = Array("parley/2 presence".utf8) + peer + [1, 2, 3, 4, 5, 6, 7, 8, 2, 0x00, 0x00, 0x3A, 0x02]
        try Fixtures.bob.publicKey.verify(signature, for: transcript)
        #expect(try Frame.decodeAll(bytes) == [.presence(beat)])
    }

    @Test(arguments: [(true, UInt8(1)), (false, UInt8(0))])
    func typingFrameLayoutIsChatThenState(active: Bool, byte: UInt8) throws {
        let chat = Fixtures.invite.id
        let bytes = Frame.encode([.typing(chat: chat, active: active)])
        #expect(bytes == [9, 0, 0, 0, 33] + chat.rawRepresentation + [byte])
        #expect(try Frame.decodeAll(bytes) == [.typing(chat: chat, active: active)])
    }

    static let chat = Fixtures.invite.id.rawRepresentation
    static let beatBody = Array(Frame.encode([.presence(PresenceTests.beat())]).dropFirst(5))

    static func frame(_ kind: UInt8, _ body: [UInt8]) -> [UInt8] {
        [kind, 0, 0, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
    }

    @Test(arguments: [
        ("typing state 2", frame(9, chat + [2])),
        ("typing without state", frame(9, chat)),
        ("typing with a trailing byte", frame(9, chat + [1, 0])),
        ("presence status 0", frame(8, Array(beatBody[0..<40]) + [0] + Array(beatBody[41...]))),
        ("presence status 3", frame(8, Array(beatBody[0..<40]) + [3] + Array(beatBody[41...]))),
        ("presence interval 999 ms", frame(8, Array(beatBody[0..<41]) + [0, 0, 0x03, 0xE7] + Array(beatBody[45...]))),
        (
            "presence interval 60,001 ms",
            frame(8, Array(beatBody[0..<41]) + [0, 0, 0xEA, 0x61] + Array(beatBody[45...]))
        ),
        ("presence truncated signature", frame(8, Array(beatBody.dropLast()))),
        ("presence with a trailing byte", frame(8, beatBody + [0])),
        ("length beyond the packet", [8, 0, 0, 0, 110] + beatBody),
    ])
    func malformedPresenceAndTypingFramesAreRejected(_ label: String, bytes: [UInt8]) {
        #expect(throws: CoreError.self, "\(label)") { try Frame.decodeAll(bytes) }
    }
}
