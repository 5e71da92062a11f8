import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Testing

/// Issue 34, finding 6: a member flooding a node with fake ballot envelopes, each of which used to
/// cost a full ring verification on the receive path. What a flood costs is counted in ring
/// verifications (`EnvelopeChecks.ringVerifications`), not in time. A sender over its budget of
/// failed ring checks is demoted behind every other sender, never refused for good.
struct BallotFloodTests {
    @Test func aFloodOfFakeEnvelopesCostsOnlyTheCheckersTaskAndAnHonestBallotSentAfterItCounts() async throws {
        // Given alice's secret poll among alice, bob, carol and mallory
        let bed = try await PumpedPeers.make(count: 4)
        let (alice, bob, carol, mallory) = (bed.peers[0], bed.peers[1], bed.peers[2], bed.peers[3])
        try await bed.running {
            let (chat, poll, secret) = try await bed.secretPoll()

            // When mallory sends carol 40 envelopes addressed to her, each a ballot with a made-up linking tag
            try await Self.sendFakes(40, from: mallory, to: carol, via: carol, chat: chat, poll: poll, secret: secret)
            try await bed.settle()

            // Then carol's checker, with no other envelope waiting, checked every one, refused none, and
            // holds mallory over budget for the rest of the minute
            #expect(carol.node.envelopeChecks.ringVerifications == 40)
            #expect(await carol.node.status().rejections["badBallot"] == 40)
            #expect(await carol.node.status().rejections["ballotRelayRefused"] == nil)
            #expect(
                carol.node.envelopeChecks.isOverBudget(mallory.identity.publicKey, wallMillis: bed.clock.wallMillis))

            // When bob's honest ballot then reaches carol through alice, and the poll closes
            try await Self.voteUp(bob, through: alice, to: carol, chat: chat, poll: poll, secret: secret)
            try await bed.advance(by: .seconds(60))
            try await bed.advance(by: .seconds(30))

            // Then it cost carol one more ring check, and it counts on every node
            #expect(carol.node.envelopeChecks.ringVerifications == 41)
            for peer in bed.peers {
                let snapshot = try peer.node.pollSnapshot(chat: chat, poll: poll)
                #expect(snapshot.phase == .closed)
                #expect(snapshot.tally.map { [$0.up, $0.down] } == [1, 0])
                #expect(snapshot.secret?.tally.rejected == 0)
            }
        }
    }

    @Test func fakesPassedThroughAPublisherToTheCreatorDoNotCostTheHonestBallotsThatPublisherHandsOver() async throws {
        // Given alice's secret poll among alice, bob, carol and mallory
        let bed = try await PumpedPeers.make(count: 4)
        let (alice, bob, carol, mallory) = (bed.peers[0], bed.peers[1], bed.peers[2], bed.peers[3])
        try await bed.running {
            let (chat, poll, secret) = try await bed.secretPoll()

            // When mallory sends fake envelopes for alice, the creator, through bob, as many as a sender's budget
            try await Self.putBobOverBudget(on: alice, bed, chat: chat, poll: poll, secret: secret)

            // and carol's honest ballot reaches bob as its publisher, which hands it to alice at the close
            try await Self.voteUp(carol, through: mallory, to: bob, chat: chat, poll: poll, secret: secret)
            try await bed.advance(by: .seconds(60))
            try await bed.advance(by: .seconds(30))

            // Then it counts on every node: alice charged mallory's fakes to bob, the member they came
            // from, but a budget only demotes a sender, for a minute, and never refuses its hand-over
            for peer in bed.peers {
                let snapshot = try peer.node.pollSnapshot(chat: chat, poll: poll)
                #expect(snapshot.phase == .closed)
                #expect(snapshot.tally.map { [$0.up, $0.down] } == [1, 0])
            }
        }
    }

    @Test func aReplayedOrMisshapenEnvelopeIsRefusedBeforeAnyRingCheck() async throws {
        // Given alice's secret poll among four members
        let bed = try await PumpedPeers.make(count: 4)
        let (carol, mallory) = (bed.peers[2], bed.peers[3])
        try await bed.running {
            let (chat, poll, secret) = try await bed.secretPoll()
            let fake = try Self.fakeBallot(by: mallory, chat: chat, poll: poll, secret: secret)
            let once = try Self.sealed(fake, chat: chat, secret: secret, to: carol)
            let oversized = try carol.identity.publicKey.agreementKey().seal(
                BallotEnvelope(chat: chat, ballot: fake).encoded(size: secret.envelopeBytes + BallotEnvelope.padding))
            let toCarol = { (sealed: [UInt8]) in
                Frame.ballotRelay(publisher: carol.identity.publicKey, holdMillis: 0, sealed: sealed)
            }

            // When mallory sends one fake envelope five times, and one padded beyond the poll's envelope size
            await mallory.node.transmit(
                Array(repeating: toCarol(once), count: 5) + [toCarol(oversized)], to: carol.identity.publicKey)
            try await bed.settle()

            // Then carol checked the ring once: the repeats are refused unopened, the oversized one opened but unchecked
            #expect(carol.node.envelopeChecks.ringVerifications == 1)
            #expect(await carol.node.status().rejections["ballotRelayRefused"] == 4)
            #expect(await carol.node.status().rejections["badBallot"] == 2)
        }
    }

    @Test func anHonestEnvelopeFromARelayOverItsBudgetIsStillCheckedAndTheRelayIsBackInBudgetAMinuteLater() async throws
    {
        // Given alice's secret poll among alice, bob, carol and mallory
        let bed = try await PumpedPeers.make(count: 4)
        let (alice, bob, carol) = (bed.peers[0], bed.peers[1], bed.peers[2])
        try await bed.running {
            let (chat, poll, secret) = try await bed.secretPoll()

            // When mallory passes carol a budget of fake envelopes through bob, putting bob over budget with her
            let budget = EnvelopeChecks.failedRingChecksPerSenderPerMinute
            try await Self.putBobOverBudget(on: carol, bed, chat: chat, poll: poll, secret: secret)

            // and, within the same minute, alice's honest ballot reaches carol through bob
            try await Self.voteUp(alice, through: bob, to: carol, chat: chat, poll: poll, secret: secret)
            try await bed.advance(by: .seconds(6))

            // Then carol checked it all the same (nothing else waited), holds it, and refused nothing
            #expect(carol.node.envelopeChecks.ringVerifications == budget + 1)
            #expect(try carol.node.heldBallots(of: poll).count == 1)
            #expect(await carol.node.status().rejections["ballotRelayRefused"] == nil)

            // When the minute is over, bob is back in budget, and after the close the ballot counts on every node
            try await bed.advance(by: .seconds(60))
            #expect(!carol.node.envelopeChecks.isOverBudget(bob.identity.publicKey, wallMillis: bed.clock.wallMillis))
            try await bed.advance(by: .seconds(30))
            for peer in bed.peers {
                let snapshot = try peer.node.pollSnapshot(chat: chat, poll: poll)
                #expect(snapshot.phase == .closed)
                #expect(snapshot.tally.map { [$0.up, $0.down] } == [1, 0])
            }
        }
    }

    @Test func anOverBudgetSendersEnvelopesAreCheckedOnlyWhenNoOtherWaitsAndRefusedOnlyWhenTheirLaneIsFull() throws {
        // Given a node's envelope queue, and mallory's envelope queued while she was within her budget
        let checks = EnvelopeChecks()
        let now: Int64 = 1_800_000_000_000
        let (mallory, bob) = (try Identity.generate().publicKey, try Identity.generate().publicKey)
        let envelope = { (n: Int) in withUnsafeBytes(of: n) { Array($0) } }
        try checks.enqueue(envelope(0), from: mallory, wallMillis: now)

        // When her ballots then fail their budget of ring checks, and she and bob each queue more
        for _ in 0..<EnvelopeChecks.failedRingChecksPerSenderPerMinute {
            checks.noteRingVerification(from: mallory, failed: true, wallMillis: now)
        }
        try checks.enqueue(envelope(1), from: mallory, wallMillis: now)
        try checks.enqueue(envelope(2), from: mallory, wallMillis: now)
        try checks.enqueue(envelope(3), from: bob, wallMillis: now)
        try checks.enqueue(envelope(4), from: bob, wallMillis: now)

        // Then bob's are checked first, then mallory's, the one queued in budget last
        let order = (0..<5).map { _ in Self.checked(checks.next(wallMillis: now)) }
        #expect(order == [3, 4, 1, 2, 0].map(envelope))
        #expect(checks.queued == (inBudget: 0, overBudget: 0))

        // When over-budget senders fill their lane
        var n = 100
        for _ in 0..<EnvelopeChecks.maxQueuedOverBudget / EnvelopeChecks.maxQueuedPerSender {
            let flooder = try Identity.generate().publicKey
            for _ in 0..<EnvelopeChecks.failedRingChecksPerSenderPerMinute {
                checks.noteRingVerification(from: flooder, failed: true, wallMillis: now)
            }
            for _ in 0..<EnvelopeChecks.maxQueuedPerSender {
                n += 1
                try checks.enqueue(envelope(n), from: flooder, wallMillis: now)
            }
        }
        #expect(checks.queued == (inBudget: 0, overBudget: EnvelopeChecks.maxQueuedOverBudget))

        // Then mallory's next envelope is refused, bob's is queued and checked first,
        // and a minute later mallory is back in budget
        #expect(throws: EnvelopeChecks.Refusal.queueFull) {
            try checks.enqueue(envelope(5), from: mallory, wallMillis: now)
        }
        try checks.enqueue(envelope(6), from: bob, wallMillis: now)
        #expect(Self.checked(checks.next(wallMillis: now)) == envelope(6))
        #expect(!checks.isOverBudget(mallory, wallMillis: now + 60_000))
        try checks.enqueue(envelope(7), from: mallory, wallMillis: now + 60_000)
        #expect(Self.checked(checks.next(wallMillis: now + 60_000)) == envelope(7))
    }

    private static func checked(_ next: EnvelopeChecks.Next?) -> [UInt8]? {
        guard case .check(let waiting) = next else { return nil }
        return waiting.sealed
    }

    /// Mallory's real ballot with its linking tag replaced by a fresh point: it decodes and has the
    /// poll's shape, a tag no node holds, and a ring that does not verify.
    private static func fakeBallot(by mallory: PumpedPeers.Peer, chat: ChatID, poll: MessageID, secret: SecretPoll)
        throws -> [UInt8]
    {
        let key = try mallory.node.ballotKeyPair(chat: chat)
        var bytes = try SecretBallot.cast(chat: chat, poll: poll, secret: secret, selection: ["up"], key: key).encoded
        let tagAt = 1 + 32 + 4 + 2 // version, poll, selection ["up"], ring size
        let tag = try BallotKeyPair(identity: Identity.generate(), chat: chat.rawRepresentation).publicKey
            .rawRepresentation
        bytes.replaceSubrange(tagAt..<tagAt + 32, with: tag)
        return bytes
    }

    /// `count` of mallory's fake ballots, each sealed to `publisher`, sent to `relay` to pass on
    /// (`relay` may be `publisher` itself).
    private static func sendFakes(
        _ count: Int, from mallory: PumpedPeers.Peer, to publisher: PumpedPeers.Peer, via relay: PumpedPeers.Peer,
        chat: ChatID, poll: MessageID, secret: SecretPoll
    ) async throws {
        let fakes = try (0..<count).map { _ in
            try sealed(
                fakeBallot(by: mallory, chat: chat, poll: poll, secret: secret), chat: chat, secret: secret,
                to: publisher)
        }
        await mallory.node.transmit(
            fakes.map { .ballotRelay(publisher: publisher.identity.publicKey, holdMillis: 0, sealed: $0) },
            to: relay.identity.publicKey)
    }

    /// Mallory (the bed's fourth) passes `publisher` a budget of fake envelopes through bob (its
    /// second): `publisher` checks every one and holds bob over budget.
    private static func putBobOverBudget(
        on publisher: PumpedPeers.Peer, _ bed: PumpedPeers, chat: ChatID, poll: MessageID, secret: SecretPoll
    ) async throws {
        let (bob, mallory) = (bed.peers[1], bed.peers[3])
        let budget = EnvelopeChecks.failedRingChecksPerSenderPerMinute
        try await sendFakes(budget, from: mallory, to: publisher, via: bob, chat: chat, poll: poll, secret: secret)
        try await bed.advance(by: .seconds(6))
        #expect(publisher.node.envelopeChecks.ringVerifications == budget)
        #expect(publisher.node.envelopeChecks.isOverBudget(bob.identity.publicKey, wallMillis: bed.clock.wallMillis))
    }

    /// `voter`'s honest ballot for "up", sent through `first` to `publisher` with no hold (as a retry
    /// after the closing time is), so that it arrives within the minute its relay is over budget.
    private static func voteUp(
        _ voter: PumpedPeers.Peer, through first: PumpedPeers.Peer, to publisher: PumpedPeers.Peer,
        chat: ChatID, poll: MessageID, secret: SecretPoll
    ) async throws {
        let ballot = try SecretBallot.cast(
            chat: chat, poll: poll, secret: secret, selection: ["up"], key: voter.node.ballotKeyPair(chat: chat))
        let envelope = try sealed(ballot.encoded, chat: chat, secret: secret, to: publisher)
        await voter.node.transmit(
            [.ballotRelay(publisher: publisher.identity.publicKey, holdMillis: 0, sealed: envelope)],
            to: first.identity.publicKey)
    }

    private static func sealed(_ ballot: [UInt8], chat: ChatID, secret: SecretPoll, to publisher: PumpedPeers.Peer)
        throws -> [UInt8]
    {
        try publisher.identity.publicKey.agreementKey().seal(
            BallotEnvelope(chat: chat, ballot: ballot).encoded(size: secret.envelopeBytes))
    }
}
