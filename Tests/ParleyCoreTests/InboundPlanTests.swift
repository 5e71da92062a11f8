import ParleyCore
import ParleyCrypto
import Testing

@Suite(.timeLimit(.minutes(3))) struct InboundPlanTests {
    let alice = Fixtures.alice.publicKey, bob = Fixtures.bob.publicKey, carol = Fixtures.carol.publicKey
    let chat = Fixtures.invite.id
    let other = Self.digest(200)

    static func digest(_ byte: UInt8) -> Digest32 {
        (try? Digest32(rawRepresentation: [UInt8](repeating: byte, count: 32)))!
    }

    @Test func anEmptyBatchPlansNothing() {
        let plan = InboundPlan(sorting: [])
        #expect(plan.senders.isEmpty && plan.messages.isEmpty && plan.steps.isEmpty && plan.syncFollowUps.isEmpty)
        #expect(plan.invitesAccepted.isEmpty && plan.acked.isEmpty && plan.reads.isEmpty && plan.readsAcked.isEmpty)
        #expect(plan.typing.isEmpty && plan.ballotRelays.isEmpty && plan.introductionsAsked.isEmpty)
        #expect(plan.introductions.isEmpty && plan.forkProofs.isEmpty)
    }

    @Test func everyPeerWhoseSessionDeliveredADatagramIsHeardOnceEvenWithoutFrames() {
        let plan = InboundPlan(sorting: [
            (alice, []), (bob, [.typing(chat: chat, active: true)]), (alice, [.ack([Self.digest(1)])]),
        ])
        #expect(plan.senders == [alice, bob])
    }

    @Test func messagesKeepTheirArrivalOrderAcrossDatagramsEachWithItsDeliverer() {
        let plan = InboundPlan(sorting: [
            (bob, [.message([1]), .ack([Self.digest(9)]), .message([2])]),
            (carol, [.message([3])]),
            (bob, [.message([4])]),
        ])
        #expect(plan.messages.map(\.bytes) == [[1], [2], [3], [4]])
        #expect(plan.messages.map(\.peer) == [bob, bob, carol, bob])
        #expect(plan.steps.isEmpty)
    }

    @Test func framesThatDependOnEachOtherAreStepsInArrivalOrder() {
        // An invite joins the chat the sync request after it asks about; a beat makes its sender
        // online for the sync reply after it. Sorting them by kind would change both answers.
        let beat = PresenceBeat.make(
            identity: Fixtures.carol, wallMillis: 5_000, status: .online, interval: .seconds(20))
        let vector: [PeerID: AuthorHoldings] = [alice: .contiguous(3)]
        let plan = InboundPlan(sorting: [
            (bob, [.syncRequest(chat: other, vector: [:]), .invite([7, 7])]),
            (carol, [.presence(beat), .chainTops(chat: chat, ChainTops()), .syncRequest(chat: chat, vector: vector)]),
            (bob, [.needInvite(chat), .syncEnd(chat: chat, .done), .syncEnd(chat: other, .nothingMissing)]),
        ])
        #expect(
            plan.steps.map(\.step) == [
                .syncRequest(chat: other, vector: [:]), .invite([7, 7]),
                .presence(beat), .chainTops(chat: chat, ChainTops()), .syncRequest(chat: chat, vector: vector),
                .needInvite(chat), .syncEnded(chat: chat, .done), .syncEnded(chat: other, .nothingMissing),
            ])
        #expect(plan.steps.map(\.peer) == [bob, bob, carol, carol, carol, bob, bob, bob])
    }

    @Test func aSyncReplyEndingWithMoreIsFollowedUpNotAnswered() {
        let plan = InboundPlan(sorting: [(bob, [.syncEnd(chat: chat, .more), .syncEnd(chat: other, .done)])])
        #expect(plan.syncFollowUps == [chat: [bob]])
        #expect(plan.steps.map(\.step) == [.syncEnded(chat: other, .done)])
    }

    @Test func aPeerSayingMoreTwiceForOneChatIsFollowedUpOnce() {
        let plan = InboundPlan(sorting: [
            (bob, [.syncEnd(chat: chat, .more)]), (carol, [.syncEnd(chat: chat, .more)]),
            (bob, [.syncEnd(chat: chat, .more), .syncEnd(chat: other, .more)]),
        ])
        #expect(plan.syncFollowUps == [chat: [bob, carol], other: [bob]])
        #expect(plan.steps.isEmpty)
    }

    @Test func everyAcknowledgedIdIsPairedWithThePeerThatAcknowledgedItInOrder() {
        let (one, two, three) = (Self.digest(1), Self.digest(2), Self.digest(3))
        let plan = InboundPlan(sorting: [(bob, [.ack([one, two])]), (carol, [.ack([three]), .ack([one])])])
        #expect(plan.acked.map(\.message) == [one, two, three, one])
        #expect(plan.acked.map(\.peer) == [bob, bob, carol, carol])
    }

    @Test func acceptedInvitesAndAcknowledgedReceiptsKeepTheirSender() {
        let read = Self.digest(4)
        let plan = InboundPlan(sorting: [(bob, [.inviteAck(chat), .readAck([read])]), (carol, [.inviteAck(other)])])
        #expect(plan.invitesAccepted.map(\.chat) == [chat, other])
        #expect(plan.invitesAccepted.map(\.peer) == [bob, carol])
        #expect(plan.readsAcked.map(\.peer) == [bob] && plan.readsAcked.map(\.ids) == [[read]])
        #expect(plan.acked.isEmpty)
    }

    @Test func receiptsTypingIntroductionsRelaysAndProofsEachGoToTheirOwnList() {
        let address = PeerAddress(host: "203.0.113.7", port: 40_001)
        let read = Self.digest(5)
        let plan = InboundPlan(sorting: [
            (bob, [.read(chat: chat, ids: [read]), .typing(chat: chat, active: true), .meetRequest(carol)]),
            (
                carol,
                [
                    .meet(peer: bob, address: address), .ballotRelay(publisher: alice, holdMillis: 250, sealed: [9]),
                    .forkProof([6]),
                ]
            ),
            (bob, [.typing(chat: other, active: false)]),
        ])
        #expect(
            plan.reads.map(\.peer) == [bob] && plan.reads.map(\.chat) == [chat] && plan.reads.map(\.ids) == [[read]])
        #expect(plan.typing.map(\.chat) == [chat, other] && plan.typing.map(\.active) == [true, false])
        #expect(plan.typing.map(\.peer) == [bob, bob])
        #expect(plan.introductionsAsked.map(\.requester) == [bob] && plan.introductionsAsked.map(\.target) == [carol])
        #expect(plan.introductions.map(\.introducer) == [carol] && plan.introductions.map(\.peer) == [bob])
        #expect(plan.introductions.map(\.address) == [address])
        #expect(plan.ballotRelays.map(\.peer) == [carol] && plan.ballotRelays.map(\.publisher) == [alice])
        #expect(plan.ballotRelays.map(\.hold) == [250] && plan.ballotRelays.map(\.sealed) == [[9]])
        #expect(plan.forkProofs.map(\.peer) == [carol] && plan.forkProofs.map(\.bytes) == [[6]])
        #expect(plan.messages.isEmpty && plan.steps.isEmpty)
    }
}
