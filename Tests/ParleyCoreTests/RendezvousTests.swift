import ParleyCore
import ParleyCrypto
import Testing

/// The rendezvous frames' encoding and the rules of who introduces whom, how often (PROTOCOL §12a).
struct RendezvousTests {
    let alice = Fixtures.alice.publicKey
    let bob = Fixtures.bob.publicKey
    let carol = Fixtures.carol.publicKey

    @Test func meetFramesRoundTripWithALiteralAddressAndHaveTheDocumentedBytes() throws {
        let frames: [Frame] = [
            .meetRequest(bob),
            .meet(peer: bob, address: PeerAddress(host: "203.0.113.7", port: 40_001)),
            .meet(peer: carol, address: PeerAddress(host: "2001:db8::7", port: 9)),
            .meetAsked(peer: alice, address: PeerAddress(host: "203.0.113.9", port: 7001)),
        ]
        #expect(try Frame.decodeAll(Frame.encode(frames)) == frames)
        // type 14, length 32 + 1 + 17, peer, then "203.0.113.7:40001" as a short string
        let bytes = Frame.encode([frames[1]])
        #expect(Array(bytes.prefix(5)) == [14, 0, 0, 0, 50])
        #expect(Array(bytes[5..<37]) == bob.rawRepresentation)
        #expect(bytes[37] == 17 && String(decoding: bytes[38...], as: UTF8.self) == "203.0.113.7:40001")
        // meetAsked: type 20, the same body
        let asked = Frame.encode([frames[3]])
        #expect(Array(asked.prefix(5)) == [20, 0, 0, 0, 49])
        #expect(Array(asked[5..<37]) == alice.rawRepresentation)
        #expect(asked[37] == 16 && String(decoding: asked[38...], as: UTF8.self) == "203.0.113.9:7001")
        // and it names a literal address too
        let named = Frame.encode([.meetAsked(peer: bob, address: PeerAddress(host: "example.com", port: 1))])
        #expect(throws: CoreError.self) { try Frame.decodeAll(named) }
    }

    @Test func aMeetNamingAHostInsteadOfAnAddressIsMalformed() throws {
        for host in [
            "example.com", "10.0.0", "10.0.0.256", "1.2.3.4.5", "localhost", "+1.2.3.4", "010.0.0.1", "::ａ", ":::",
        ] {
            let bytes = Frame.encode([.meet(peer: bob, address: PeerAddress(host: host, port: 1))])
            #expect(throws: CoreError.self, "\(host)") { try Frame.decodeAll(bytes) }
        }
        #expect(PeerAddress(host: "192.168.1.20", port: 1).isNumeric && PeerAddress(host: "::1", port: 1).isNumeric)
        // Port 0, and addresses in any spelling but the canonical one, are malformed too
        for text in ["10.0.0.1:0", "10.0.0.1:+80", "10.0.0.1:080", "[10.0.0.1]:80", "::1:80"] {
            var buffer = Frame.encode([.meet(peer: bob, address: PeerAddress(host: "10.0.0.1", port: 80))])
            buffer.removeLast(10) // "10.0.0.1:80": rewrite the address in place
            buffer[37] = UInt8(text.utf8.count)
            let bytes = Array(buffer.prefix(38)) + Array(text.utf8)
            var framed = bytes
            let length = UInt32(bytes.count - 5)
            framed[1...4] = [
                UInt8(length >> 24), UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff),
            ]
            #expect(throws: CoreError.self, "\(text)") { try Frame.decodeAll(framed) }
        }
    }

    @Test func questionsTakeTurnsAmongIntroducersAndBackOffWhileTheMemberShowsNoSignOfLife() {
        var rules = Rendezvous()
        let dave = Fixtures.mallory.publicKey
        var asked: [[PeerID]] = []
        for second in [0, 9, 10, 29, 30, 70] {
            asked.append(
                rules.introducers(toAsk: dave, among: [alice, bob, carol], showsOnline: false, now: .seconds(second)))
        }
        // 10 s, then 20 s, then 40 s between questions; two introducers each time, in turn
        #expect(asked == [[alice, bob], [], [carol, alice], [], [bob, carol], [alice, bob]])
        // Once dave shows online (his beats relayed), every 10 s at once, whatever the wait was, to keep
        // the relay going
        #expect(rules.introducers(toAsk: dave, among: [alice], showsOnline: true, now: .seconds(75)).isEmpty)
        #expect(rules.introducers(toAsk: dave, among: [alice], showsOnline: true, now: .seconds(80)) == [alice])
        #expect(rules.introducers(toAsk: dave, among: [alice], showsOnline: true, now: .seconds(89)).isEmpty)
        #expect(rules.introducers(toAsk: dave, among: [alice], showsOnline: true, now: .seconds(90)) == [alice])
        // Once reached, questions start over; nobody to ask means no question
        rules.reached(dave)
        #expect(rules.introducers(toAsk: dave, among: [], showsOnline: false, now: .seconds(100)).isEmpty)
        #expect(rules.introducers(toAsk: dave, among: [bob], showsOnline: false, now: .seconds(100)) == [bob])
    }

    @Test func aMemberWithAnAddressIsAskedAboutOnlyAfterItsOwnHandshakesHadTheirGrace() {
        var rules = Rendezvous()
        let dave = Fixtures.mallory.publicKey
        // Unreached from 0 s, with an address: nothing during the grace, and no meet is acted on then
        let during = [0, 2, 4].map {
            rules.introducers(
                toAsk: dave, among: [alice, bob, carol], showsOnline: false, holdsAddress: true, now: .seconds($0))
        }
        #expect(during == [[], [], []])
        let meetDuringGrace = rules.punch(.requester, toward: dave, from: alice, now: .seconds(4))
        #expect(meetDuringGrace == nil)
        // then the first question, as a member without an address gets at once, and the usual pace
        #expect(
            rules.introducers(
                toAsk: dave, among: [alice, bob, carol], showsOnline: false, holdsAddress: true, now: .seconds(5)) == [
                    alice, bob,
                ])
        #expect(
            rules.introducers(
                toAsk: dave, among: [alice, bob, carol], showsOnline: false, holdsAddress: true, now: .seconds(14)
            ).isEmpty)
        #expect(
            rules.introducers(
                toAsk: dave, among: [alice, bob, carol], showsOnline: false, holdsAddress: true, now: .seconds(15)) == [
                    carol, alice,
                ])
        // Reached, then lost again: a new grace
        rules.reached(dave)
        #expect(
            rules.introducers(toAsk: dave, among: [bob], showsOnline: false, holdsAddress: true, now: .seconds(20))
                .isEmpty)
        #expect(
            rules.introducers(toAsk: dave, among: [bob], showsOnline: false, holdsAddress: true, now: .seconds(25)) == [
                bob
            ])
        // Being the target of a member in its grace ends the grace: that member asked about this node, so
        // the address held for it does not work
        var stale = Rendezvous()
        _ = stale.introducers(toAsk: dave, among: [bob], showsOnline: false, holdsAddress: true, now: .seconds(50))
        let askedEndingGrace = stale.punch(.target, toward: dave, from: bob, now: .seconds(51))
        #expect(askedEndingGrace == Rendezvous.Punch(handshakesAfter: Rendezvous.targetHandshakeDelay))
        #expect(
            stale.introducers(toAsk: dave, among: [bob], showsOnline: false, holdsAddress: true, now: .seconds(52)) == [
                bob
            ])
        // and one before this node's first round skips it
        var early = Rendezvous()
        let askedBeforeAnyRound = early.punch(.target, toward: dave, from: bob, now: .seconds(60))
        #expect(askedBeforeAnyRound != nil)
        #expect(
            early.introducers(toAsk: dave, among: [bob], showsOnline: false, holdsAddress: true, now: .seconds(61)) == [
                bob
            ])
        // Once questions are under way, a meet from a member not asked changes nothing: not acted on,
        // and the next question keeps its time
        let unasked = early.punch(.requester, toward: dave, from: carol, now: .seconds(62))
        #expect(unasked == nil)
        #expect(
            early.introducers(toAsk: dave, among: [bob], showsOnline: false, holdsAddress: true, now: .seconds(70))
                .isEmpty)
        #expect(
            early.introducers(toAsk: dave, among: [bob], showsOnline: false, holdsAddress: true, now: .seconds(71)) == [
                bob
            ])
        // A member already showing online through a relay, or without an address, is asked about at once
        var other = Rendezvous()
        #expect(
            other.introducers(toAsk: dave, among: [bob], showsOnline: true, holdsAddress: true, now: .zero) == [bob])
        #expect(
            other.introducers(toAsk: carol, among: [bob], showsOnline: false, holdsAddress: false, now: .zero) == [bob])
    }

    @Test func aMeetIsActedOnOnlyAsTheAnswerToAFreshQuestionToThatIntroducer() {
        var rules = Rendezvous()
        // Not asked: refused
        let unasked = rules.punch(.requester, toward: bob, from: carol, now: .zero)
        #expect(unasked == nil)
        _ = rules.introducers(toAsk: bob, among: [carol, alice], showsOnline: false, now: .seconds(1))
        let answers = [
            rules.punch(.requester, toward: bob, from: carol, now: .seconds(2)),
            rules.punch(.requester, toward: bob, from: carol, now: .seconds(3)),
            rules.punch(.requester, toward: bob, from: alice, now: .seconds(3)),
            rules.punch(.requester, toward: bob, from: Fixtures.mallory.publicKey, now: .seconds(3)),
        ]
        // In its first round a requester only opens: no handshake of its own could take the port of a
        // target that has not opened yet
        let opening = Rendezvous.Punch(handshakesAfter: nil)
        #expect(answers == [opening, nil, opening, nil])
        let late = rules.punch(.requester, toward: bob, from: carol, now: .seconds(12))
        #expect(late == nil)
    }

    @Test func theTargetOfAQuestionHandshakesAfterTheRequesterOpenedAtItsOwnPace() {
        var rules = Rendezvous()
        let dave = Fixtures.mallory.publicKey
        let handshakes = Rendezvous.Punch(handshakesAfter: Rendezvous.targetHandshakeDelay)
        // dave asked carol and alice about this node, every 10 s: each introducer's introductions are
        // acted on in rounds of their own, 10, 20, 40 s apart
        var acted: [Int] = []
        for second in stride(from: 0, through: 80, by: 10) {
            let fromCarol = rules.punch(.target, toward: dave, from: carol, now: .seconds(second))
            let fromAlice = rules.punch(.target, toward: dave, from: alice, now: .seconds(second) + .milliseconds(5))
            let again = rules.punch(.target, toward: dave, from: carol, now: .seconds(second) + .seconds(1))
            #expect(fromCarol == fromAlice && again == nil)
            if let fromCarol {
                #expect(fromCarol == handshakes)
                acted.append(second)
            }
        }
        #expect(acted == [0, 10, 30, 70])
        // Once dave is reached, rounds start over
        rules.reached(dave)
        #expect(rules.punch(.target, toward: dave, from: carol, now: .seconds(81)) == handshakes)
        // A member making up dave's questions uses up its own rounds, not carol's
        var hostile = Rendezvous()
        let mallory = Fixtures.mallory.publicKey
        let madeUp = (0..<5).map { hostile.punch(.target, toward: bob, from: mallory, now: .seconds($0)) }
        #expect(madeUp == [handshakes, nil, nil, nil, nil])
        #expect(hostile.punch(.target, toward: bob, from: carol, now: .seconds(5)) == handshakes)
    }

    @Test(arguments: [[0.5, 0.5], [0.06, 0.04], [0.04, 0.06], [1, 0.01]])
    func punchingRoundsThatDoNotReachThePeerBackOffWhileQuestionsKeepTheirPace(roundTrips: [Double]) {
        // Given dave shown online through a relay, so he is asked about every 10 s, and carol
        // answering every question, after a round trip that varies, with a meet that never gets
        // through (symmetric NATs)
        var rules = Rendezvous()
        let dave = Fixtures.mallory.publicKey
        var punched: [Int] = []
        for second in stride(from: 0, through: 80, by: 10) {
            #expect(
                rules.introducers(toAsk: dave, among: [carol, alice], showsOnline: true, now: .seconds(second)) == [
                    carol, alice,
                ])
            let answered = Duration.seconds(second) + .seconds(roundTrips[second / 10 % roundTrips.count])
            let punch = rules.punch(.requester, toward: dave, from: carol, now: answered)
            if let punch {
                punched.append(second)
                // from its second round on, the requester handshakes too, after the target
                #expect(punch.handshakesAfter == (second == 0 ? nil : Rendezvous.requesterHandshakeDelay))
            }
            // the other introducer's answer to the same question belongs to the same round
            let sameRound = rules.punch(.requester, toward: dave, from: alice, now: answered + .milliseconds(1))
            #expect(sameRound == punch)
        }
        // Then rounds start on the questions asked 10, 20, 40 s apart, whatever the round trips
        #expect(punched == [0, 10, 30, 70])
        // And once dave is reached, rounds start over
        rules.reached(dave)
        _ = rules.introducers(toAsk: dave, among: [carol], showsOnline: true, now: .seconds(90))
        let again = rules.punch(.requester, toward: dave, from: carol, now: .seconds(91))
        #expect(again == Rendezvous.Punch(handshakesAfter: nil))
    }

    @Test func eachNodeStartsTakingTurnsWhereItsOwnIdPointsSoAskersSpreadOverIntroducers() {
        var first = Rendezvous(firstTurn: 0)
        var second = Rendezvous(firstTurn: 1)
        let dave = Fixtures.mallory.publicKey
        #expect(
            first.introducers(toAsk: dave, among: [alice, bob, carol], showsOnline: false, now: .zero) == [alice, bob])
        #expect(
            second.introducers(toAsk: dave, among: [alice, bob, carol], showsOnline: false, now: .zero) == [bob, carol])
    }

    @Test func eachPairIsIntroducedAtMostOncePerFiveSeconds() {
        var rules = Rendezvous()
        let introduced = [
            rules.shouldIntroduce(alice, to: bob, now: .zero), rules.shouldIntroduce(alice, to: bob, now: .seconds(4)),
            rules.shouldIntroduce(bob, to: alice, now: .seconds(4)),
            rules.shouldIntroduce(alice, to: alice, now: .seconds(60)),
            rules.shouldIntroduce(alice, to: bob, now: .seconds(5)),
        ]
        #expect(introduced == [true, false, true, false, true])
    }

    @Test func aFloodOfDistinctPairsIsRefusedOnceTheTableIsFullOfFreshEntries() throws {
        var rules = Rendezvous()
        let peers = try (0..<1_100).map { _ in try Identity.generate().publicKey }
        let admitted = peers.count { rules.shouldIntroduce(alice, to: $0, now: .seconds(1)) }
        #expect(admitted == 1_024)
        // Once they are old, room is made again
        let later = rules.shouldIntroduce(alice, to: peers[1_050], now: .seconds(7))
        #expect(later)
    }

    @Test func peersShareAChatOnlyWhenOneChatHoldsThemAll() throws {
        let chatA = Fixtures.invite.id,
            chatB = try ChatInvite.create(
                by: Fixtures.alice, title: "B", members: [Fixtures.carol.publicKey], createdAtMillis: 1
            ).id
        let memberships = [chatA: [alice, bob, carol], chatB: [alice, carol]]
        #expect(
            Rendezvous.shareAChat([alice, bob], in: memberships)
                && Rendezvous.shareAChat([alice, bob, carol], in: memberships))
        #expect(Rendezvous.shareAChat([bob, carol], in: memberships))
        #expect(Rendezvous.shareAChat([alice, carol], in: [chatB: [alice, carol]]))
        #expect(!Rendezvous.shareAChat([alice, bob], in: [chatB: [alice, carol]]))
        #expect(!Rendezvous.shareAChat([alice, bob, Fixtures.mallory.publicKey], in: memberships))
    }

    @Test func aQuestionSubscribesTheAskerToTheTargetsBeatsForThirtySeconds() {
        var rules = Rendezvous()
        rules.relayBeats(of: bob, to: alice, now: .zero)
        rules.relayBeats(of: bob, to: bob, now: .zero) // nobody is relayed its own beats
        #expect(rules.beatSubscribers(of: bob, now: .seconds(29)) == [alice])
        #expect(rules.beatSubscribers(of: bob, now: .seconds(30)).isEmpty)
        #expect(rules.beatSubscribers(of: carol, now: .zero).isEmpty)
        // Asking again renews it
        rules.relayBeats(of: bob, to: alice, now: .seconds(25))
        #expect(rules.beatSubscribers(of: bob, now: .seconds(50)) == [alice])
    }

    @Test func oneTargetsBeatsGoToAtMostSixtyFourAskers() throws {
        var rules = Rendezvous()
        for _ in 0..<70 { rules.relayBeats(of: bob, to: try Identity.generate().publicKey, now: .zero) }
        #expect(rules.beatSubscribers(of: bob, now: .seconds(1)).count == 64)
    }
}
