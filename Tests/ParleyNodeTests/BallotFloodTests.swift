import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Testing

/// Issue 34, finding 6: a member flooding a node with fake ballot envelopes, each of which used to
/// cost a full ring verification on the receive path. What a flood costs is counted in ring
/// verifications (`EnvelopeChecks.ringVerifications`), not in time.
struct BallotFloodTests {
    @Test func aFloodOfFakeEnvelopesCostsTheVictimOnlyItsSendersBudgetOfRingChecksAndAnHonestBallotStillCounts() async throws {
        // Given alice's secret poll among alice, bob, carol and mallory
        let bed = try await PumpedPeers.make(count: 4)
        let (alice, bob, carol, mallory) = (bed.peers[0], bed.peers[1], bed.peers[2], bed.peers[3])
        try await bed.running {
            let (chat, poll, secret) = try await Self.pollOfFour(bed)

            // When mallory sends carol 40 envelopes addressed to her, each a ballot with a made-up linking tag
            let fakes = try (0..<40).map { _ in
                try Self.sealed(Self.fakeBallot(by: mallory, chat: chat, poll: poll, secret: secret), chat: chat, secret: secret, to: carol)
            }
            await mallory.node.transmit(
                fakes.map { .ballotRelay(publisher: carol.identity.publicKey, maxDelayMillis: 0, sealed: $0) }, to: carol.identity.publicKey)
            try await bed.settle()

            // Then carol verified the rings of only mallory's budget of them, and refused the rest unverified
            let budget = EnvelopeChecks.failedRingChecksPerSenderPerPoll
            #expect(carol.node.envelopeChecks.ringVerifications == budget)
            #expect(await carol.node.status().rejections["badBallot"] == budget)
            #expect(await carol.node.status().rejections["ballotRelayRefused"] == 40 - budget)

            // When bob's honest ballot then reaches carol through alice, and the poll closes
            let ballot = try SecretBallot.cast(
                chat: chat, poll: poll, secret: secret, selection: ["up"], key: bob.node.ballotKeyPair(chat: chat))
            try await bob.node.relay(
                ballot.encoded, chat: chat, poll: poll, secret: secret, through: (first: alice.identity.publicKey, publisher: carol.identity.publicKey))
            try await bed.advance(by: .seconds(60))
            try await bed.advance(by: .seconds(30))

            // Then it cost carol one more ring check, and it counts on every node
            #expect(carol.node.envelopeChecks.ringVerifications == budget + 1)
            for peer in bed.peers {
                let snapshot = try peer.node.pollSnapshot(chat: chat, poll: poll)
                #expect(snapshot.phase == .closed)
                #expect(snapshot.tally.map { [$0.up, $0.down] } == [1, 0])
                #expect(snapshot.secret?.tally.rejected == 0)
            }
        }
    }

    @Test func aReplayedOrMisshapenEnvelopeIsRefusedBeforeAnyRingCheck() async throws {
        // Given alice's secret poll among four members
        let bed = try await PumpedPeers.make(count: 4)
        let (carol, mallory) = (bed.peers[2], bed.peers[3])
        try await bed.running {
            let (chat, poll, secret) = try await Self.pollOfFour(bed)
            let fake = try Self.fakeBallot(by: mallory, chat: chat, poll: poll, secret: secret)
            let once = try Self.sealed(fake, chat: chat, secret: secret, to: carol)
            let oversized = try carol.identity.publicKey.agreementKey().seal(
                BallotEnvelope(chat: chat, ballot: fake).encoded(size: secret.envelopeBytes + BallotEnvelope.padding))
            let toCarol = { (sealed: [UInt8]) in Frame.ballotRelay(publisher: carol.identity.publicKey, maxDelayMillis: 0, sealed: sealed) }

            // When mallory sends one fake envelope five times, and one padded beyond the poll's envelope size
            await mallory.node.transmit(Array(repeating: toCarol(once), count: 5) + [toCarol(oversized)], to: carol.identity.publicKey)
            try await bed.settle()

            // Then carol checked the ring once: the repeats are refused unopened, the oversized one opened but unchecked
            #expect(carol.node.envelopeChecks.ringVerifications == 1)
            #expect(await carol.node.status().rejections["ballotRelayRefused"] == 4)
            #expect(await carol.node.status().rejections["badBallot"] == 2)
        }
    }

    @Test func aMemberFloodingSeveralPollsGetsNoMoreRingChecksAMinuteThanTheBudget() async throws {
        // Given three secret polls of alice's among four members
        let bed = try await PumpedPeers.make(count: 4)
        let (alice, carol, mallory) = (bed.peers[0], bed.peers[2], bed.peers[3])
        try await bed.running {
            let (chat, first, secret) = try await Self.pollOfFour(bed)
            var polls = [first]
            for question in ["Second?", "Third?"] {
                let created = try await alice.node.createSecretPoll(
                    chat: chat, question: .yesNo(question), closesAtMillis: bed.clock.wallMillis + 60_000)
                polls.append(created.poll.id)
            }
            try await bed.settle()

            // When mallory sends carol 3 fake envelopes on each, within one minute
            var fakes: [[UInt8]] = []
            for poll in polls {
                let stored = try #require(try carol.node.store.message(poll))
                let pollSecret = try #require(try ParleyCore.Poll(stored.message).secret)
                for _ in 0..<3 {
                    let fake = try Self.fakeBallot(by: mallory, chat: chat, poll: poll, secret: pollSecret)
                    fakes.append(try Self.sealed(fake, chat: chat, secret: secret, to: carol))
                }
            }
            await mallory.node.transmit(
                fakes.map { .ballotRelay(publisher: carol.identity.publicKey, maxDelayMillis: 0, sealed: $0) }, to: carol.identity.publicKey)
            try await bed.settle()

            // Then carol checked only the minute's budget of rings, not the three polls' budgets
            #expect(carol.node.envelopeChecks.ringVerifications == EnvelopeChecks.failedRingChecksPerSenderPerMinute)
        }
    }

    /// A chat of the bed's four peers with their ballot keys published, and alice's secret yes/no
    /// poll closing in a minute.
    private static func pollOfFour(_ bed: PumpedPeers) async throws -> (chat: ChatID, poll: MessageID, secret: SecretPoll) {
        let alice = bed.peers[0]
        let invite = try await alice.node.createChat(title: "Board", members: bed.peers.dropFirst().map(\.identity.publicKey))
        try await bed.settle()
        try await alice.node.prepareSecretPolls(chat: invite.id)
        try await bed.settle()
        let created = try await alice.node.createSecretPoll(
            chat: invite.id, question: .yesNo("Raise dues?"), closesAtMillis: bed.clock.wallMillis + 60_000)
        try await bed.settle()
        return (invite.id, created.poll.id, try #require(try ParleyCore.Poll(created.poll.message).secret))
    }

    /// Mallory's real ballot with its linking tag replaced by a fresh point: it decodes and has the
    /// poll's shape, a tag no node holds, and a ring that does not verify.
    private static func fakeBallot(by mallory: PumpedPeers.Peer, chat: ChatID, poll: MessageID, secret: SecretPoll) throws -> [UInt8] {
        let key = try mallory.node.ballotKeyPair(chat: chat)
        var bytes = try SecretBallot.cast(chat: chat, poll: poll, secret: secret, selection: ["up"], key: key).encoded
        let tagAt = 1 + 32 + 4 + 2 // version, poll, selection ["up"], ring size
        let tag = try BallotKeyPair(identity: Identity.generate(), chat: chat.rawRepresentation).publicKey.rawRepresentation
        bytes.replaceSubrange(tagAt..<tagAt + 32, with: tag)
        return bytes
    }

    private static func sealed(_ ballot: [UInt8], chat: ChatID, secret: SecretPoll, to publisher: PumpedPeers.Peer) throws -> [UInt8] {
        try publisher.identity.publicKey.agreementKey().seal(BallotEnvelope(chat: chat, ballot: ballot).encoded(size: secret.envelopeBytes))
    }
}
