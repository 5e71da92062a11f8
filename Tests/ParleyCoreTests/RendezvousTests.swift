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
        ]
        #expect(try Frame.decodeAll(Frame.encode(frames)) == frames)
        // type 14, length 32 + 1 + 17, peer, then "203.0.113.7:40001" as a short string
        let bytes = Frame.encode([frames[1]])
        #expect(Array(bytes.prefix(5)) == [14, 0, 0, 0, 50])
        #expect(Array(bytes[5..<37]) == bob.rawRepresentation)
        #expect(bytes[37] == 17 && String(decoding: bytes[38...], as: UTF8.self) == "203.0.113.7:40001")
    }

    @Test func aMeetNamingAHostInsteadOfAnAddressIsMalformed() throws {
        for host in ["example.com", "10.0.0", "10.0.0.256", "1.2.3.4.5", "localhost", "+1.2.3.4"] {
            let bytes = Frame.encode([.meet(peer: bob, address: PeerAddress(host: host, port: 1))])
            #expect(throws: CoreError.self, "\(host)") { try Frame.decodeAll(bytes) }
        }
        #expect(PeerAddress(host: "192.168.1.20", port: 1).isNumeric && PeerAddress(host: "::1", port: 1).isNumeric)
    }

    @Test func eachQuestionIntroductionAndMeetingIsRateLimitedPerPeer() {
        var rules = Rendezvous()
        let asked = [
            rules.shouldAsk(about: bob, now: .zero), rules.shouldAsk(about: bob, now: .seconds(9)),
            rules.shouldAsk(about: carol, now: .seconds(9)), rules.shouldAsk(about: bob, now: .seconds(10)),
        ]
        #expect(asked == [true, false, true, true])
        let introduced = [
            rules.shouldIntroduce(alice, to: bob, now: .zero), rules.shouldIntroduce(alice, to: bob, now: .seconds(4)),
            rules.shouldIntroduce(bob, to: alice, now: .seconds(4)), rules.shouldIntroduce(alice, to: alice, now: .seconds(60)),
        ]
        #expect(introduced == [true, false, true, false])
        let met = [rules.shouldMeet(bob, now: .zero), rules.shouldMeet(bob, now: .seconds(9)), rules.shouldMeet(bob, now: .seconds(10))]
        #expect(met == [true, false, true])
    }

    @Test func aFloodOfDistinctPeersIsRefusedOnceTheTableIsFullOfFreshEntries() throws {
        var rules = Rendezvous()
        let peers = try (0..<1_100).map { _ in try Identity.generate().publicKey }
        let admitted = peers.count { rules.shouldMeet($0, now: .seconds(1)) }
        #expect(admitted == 1_024)
        // Once they are old, room is made again
        let later = rules.shouldMeet(peers[1_050], now: .seconds(12))
        #expect(later)
    }

    @Test func onlyMembersOfAChatHoldingAllTheNamedPeersShareIt() throws {
        let chatA = Fixtures.invite.id, chatB = try ChatInvite.create(by: Fixtures.alice, title: "B", members: [Fixtures.carol.publicKey], createdAtMillis: 1).id
        let memberships = [chatA: [alice, bob, carol], chatB: [alice, carol]]
        #expect(Rendezvous.sharing([alice, bob], in: memberships) == [alice, bob, carol])
        #expect(Rendezvous.sharing([bob, carol], in: memberships).contains(bob))
        #expect(Rendezvous.sharing([alice, carol], in: [chatB: [alice, carol]]) == [alice, carol])
        #expect(Rendezvous.sharing([alice, bob], in: [chatB: [alice, carol]]).isEmpty)
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
