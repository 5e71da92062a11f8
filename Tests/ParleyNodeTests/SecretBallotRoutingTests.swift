import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Synchronization
import Testing

/// Findings 1, 4 and 5 of issue 34, on one stepped clock: no single relay or publisher can make a
/// ballot stand out. A ballot travels two independent paths, first relays hold envelopes until the
/// closing time, nothing is published alone after the creator's batch, and only the creator's
/// publication counts.
struct SecretBallotRoutingTests {
    /// The `PollSecretBallot` messages `peer` holds for `poll`, by author.
    private static func published(on peer: PumpedPeers.Peer, chat: ChatID, poll: MessageID) throws -> [Message] {
        try peer.node.store.messages(matching: MessageCriteria(chat: chat, tag: .pollSecretBallot, referencing: poll))
            .map(\.message)
    }

    /// Takes away every envelope `peer` holds as a first relay, as a hostile relay would: it can
    /// drop them, or pass them on whenever it likes.
    private static func withhold(_ peer: PumpedPeers.Peer) -> [SecretBallotDesk.Forward] {
        peer.node.secretBallots.state.withLock { state in
            defer { state.forwards.removeAll() }
            return state.forwards
        }
    }

    @Test func aHostileFirstRelayThatHoldsAnEnvelopePastTheBatchCannotKeepTheBallotOutOfItNorSingleItOut() async throws
    {
        // Given six members and alice's secret poll; bob, carol and dave vote
        let bed = try await PumpedPeers.make(count: 6)
        let (alice, bob) = (bed.peers[0], bed.peers[1])
        try await bed.running {
            let (chat, poll, secret) = try await bed.secretPoll()
            let cast = try await bob.node.castSecretBallot(chat: chat, poll: poll, choices: ["down"])
            for voter in bed.peers[2...3] {
                _ = try await voter.node.castSecretBallot(chat: chat, poll: poll, choices: ["up"])
            }
            try await bed.settle()

            // (five others are reachable: bob's ballot went two ways, no member on both)
            #expect(cast.paths.count == 2)
            let onPaths = cast.paths.flatMap { [$0.firstRelay, $0.publisher] }
            #expect(Set(onPaths).count == 4 && !onPaths.contains(bob.identity.publicKey))

            // When the first relay of bob's first path keeps his envelope (and everything else it holds)
            // and passes it on only after the creator's batch
            let hostile = try #require(bed.peers.first { $0.identity.publicKey == cast.paths[0].firstRelay })
            let kept = Self.withhold(hostile)
            #expect(!kept.isEmpty)
            try await bed.advance(by: .seconds(72))
            for forward in kept {
                await hostile.node.transmit(
                    [.ballotRelay(publisher: forward.publisher, holdMillis: 0, sealed: forward.sealed)],
                    to: forward.publisher)
            }
            try await bed.advance(by: .seconds(20))

            // Then bob's ballot came out in the creator's one batch, with the others, and nothing after it
            let batchTime = secret.closesAtMillis + 10_000
            for peer in bed.peers {
                let ballots = try Self.published(on: peer, chat: chat, poll: poll)
                #expect(ballots.count == 3)
                #expect(
                    ballots.allSatisfy {
                        $0.author == alice.identity.publicKey && ($0.timestampMillis - batchTime) < 1_000
                    })
                let snapshot = try peer.node.pollSnapshot(chat: chat, poll: poll)
                #expect(snapshot.phase == .closed && snapshot.tally.map { [$0.up, $0.down] } == [2, 1])
            }
            #expect(try bob.node.pollSnapshot(chat: chat, poll: poll).secret?.ownBallot == .counted)
        }
    }

    @Test func aBallotThatMissedTheBatchIsNeverPublishedAloneAndItsVoterIsToldItWasNotCounted() async throws {
        // Given five members and alice's secret poll, and bob's ballot, whose every relay withholds
        // what it holds until after the creator's batch
        let bed = try await PumpedPeers.make(count: 5)
        let bob = bed.peers[1]
        try await bed.running {
            let (chat, poll, _) = try await bed.secretPoll()
            _ = try await bob.node.castSecretBallot(chat: chat, poll: poll, choices: ["down"])
            try await bed.settle()
            for peer in bed.peers { _ = Self.withhold(peer) }

            // When the closing time passes: bob's node finds it missing from the batch and sends it
            // again, and the creator gets it after its batch
            try await bed.advance(by: .seconds(95))

            // Then it was the only late ballot, so it was never published, on any node, nor revealed (no
            // publisher commits to a ballot that reaches it after the batch); bob is told
            for peer in bed.peers {
                #expect(try Self.published(on: peer, chat: chat, poll: poll).isEmpty)
                #expect(
                    try peer.node.store.messages(
                        matching: MessageCriteria(chat: chat, tag: .pollBallotReveal, referencing: poll)
                    ).isEmpty)
                #expect(try peer.node.pollSnapshot(chat: chat, poll: poll).secret?.tally.suppressed == 0)
                let snapshot = try peer.node.pollSnapshot(chat: chat, poll: poll)
                #expect(snapshot.phase == .closed && snapshot.tally.map { $0.up + $0.down } == 0)
            }
            #expect(try bob.node.pollSnapshot(chat: chat, poll: poll).secret?.ownBallot == .notCounted)
        }
    }

    @Test func threeBallotsThatMissedTheBatchArePublishedTogetherInTheLateBatchAndCount() async throws {
        // Given six members and alice's secret poll; bob's, carol's and dave's envelopes are withheld
        // by every relay, erin's goes through
        let bed = try await PumpedPeers.make(count: 6)
        let (alice, bob, carol, dave, erin) = (bed.peers[0], bed.peers[1], bed.peers[2], bed.peers[3], bed.peers[4])
        try await bed.running {
            let (chat, poll, secret) = try await bed.secretPoll()
            _ = try await bob.node.castSecretBallot(chat: chat, poll: poll, choices: ["down"])
            _ = try await carol.node.castSecretBallot(chat: chat, poll: poll, choices: ["up"])
            _ = try await dave.node.castSecretBallot(chat: chat, poll: poll, choices: ["up"])
            try await bed.settle()
            for peer in bed.peers { _ = Self.withhold(peer) }
            _ = try await erin.node.castSecretBallot(chat: chat, poll: poll, choices: ["up"])

            // When the poll closes: erin's is in the batch; the three retries reach the creator after it
            try await bed.advance(by: .seconds(95))

            // Then the three late ones came out together at the close, never one alone, and all four count;
            // no publisher committed to (so none reveals) a ballot that reached it after the batch
            let batchTime = secret.closesAtMillis + 10_000
            for peer in bed.peers {
                let ballots = try Self.published(on: peer, chat: chat, poll: poll).sorted {
                    $0.timestampMillis < $1.timestampMillis
                }
                #expect(ballots.count == 4)
                #expect(ballots.allSatisfy { $0.author == alice.identity.publicKey })
                #expect(ballots.first.map { $0.timestampMillis - batchTime < 1_000 } == true)
                let late = ballots.dropFirst()
                #expect(
                    late.allSatisfy {
                        $0.timestampMillis == late.first?.timestampMillis && $0.timestampMillis >= batchTime + 2_000
                    })
                let snapshot = try peer.node.pollSnapshot(chat: chat, poll: poll)
                #expect(snapshot.phase == .closed && snapshot.tally.map { [$0.up, $0.down] } == [3, 1])
                #expect(snapshot.secret?.tally.suppressed == 0)
            }
            for voter in [bob, carol, dave, erin] {
                #expect(try voter.node.pollSnapshot(chat: chat, poll: poll).secret?.ownBallot == .counted)
            }
        }
    }

    @Test func aVoterWhoSendsDifferentBallotsAlongItsTwoPathsGetsOneCountedAndFramesNoOne() async throws {
        // Given six members and alice's secret poll, and bob's modified client, which sends "up"
        // along one path and "down" along the other
        let bed = try await PumpedPeers.make(count: 6)
        let (alice, bob) = (bed.peers[0], bed.peers[1])
        try await bed.running {
            let (chat, poll, secret) = try await bed.secretPoll()
            let paths = try await bob.node.choosePaths(chat: chat, creator: alice.identity.publicKey, avoiding: [])
            #expect(paths.count == 2)
            for (path, choice) in zip(paths, ["up", "down"]) {
                let ballot = try SecretBallot.cast(
                    chat: chat, poll: poll, secret: secret, selection: [choice], key: bob.node.ballotKeyPair(chat: chat)
                )
                try await bob.node.relay(ballot.encoded, chat: chat, poll: poll, secret: secret, along: [path])
            }
            try await bed.advance(by: .seconds(95))

            // Then the creator published the first it got (one per linking tag), and the other
            // publisher's commitment to the second shows nothing left out: the creator did publish bob's tag
            for peer in bed.peers {
                let snapshot = try peer.node.pollSnapshot(chat: chat, poll: poll)
                #expect(snapshot.phase == .closed && snapshot.tally.map { $0.up + $0.down } == 1)
                #expect(
                    snapshot.secret?.tally.suppressed == 0
                        && snapshot.secret?.tally.suppressionRevealedBy.isEmpty == true)
            }
        }
    }

    @Test func firstRelaysHoldEnvelopesUntilTheClosingTimeSoNoPublisherLearnsWhenABallotWasCast() async throws {
        // Given five members and alice's secret poll; bob votes at once, carol 15 s later, dave 30 s later
        let bed = try await PumpedPeers.make(count: 5)
        try await bed.running {
            let (chat, poll, _) = try await bed.secretPoll()
            for voter in bed.peers[1...3] {
                _ = try await voter.node.castSecretBallot(chat: chat, poll: poll, choices: ["up"])
                try await bed.advance(by: .seconds(15))
            }

            // Then until the closing time no publisher holds any ballot: every envelope waits at its first relay
            try await bed.advance(by: .seconds(14))
            for peer in bed.peers { #expect(try peer.node.heldBallots(of: poll).isEmpty) }

            // and just after it every ballot has reached its publishers at once, and counts at the close
            try await bed.advance(by: .seconds(2))
            let held = try bed.peers.reduce(into: Set<String>()) {
                $0.formUnion(try $1.node.heldBallots(of: poll).keys)
            }
            #expect(held.count == 3)
            try await bed.advance(by: .seconds(30))
            for peer in bed.peers {
                #expect(try peer.node.pollSnapshot(chat: chat, poll: poll).tally.map { $0.up } == 3)
            }
        }
    }

    @Test func aPublisherThatPutsABallotOutItselfGetsItCountedOnNoNode() async throws {
        // Given four members and alice's secret poll; bob's ballot goes through carol to mallory
        let bed = try await PumpedPeers.make(count: 4)
        let (alice, bob, carol, mallory) = (bed.peers[0], bed.peers[1], bed.peers[2], bed.peers[3])
        try await bed.running {
            let (chat, poll, secret) = try await bed.secretPoll()
            let ballot = try SecretBallot.cast(
                chat: chat, poll: poll, secret: secret, selection: ["up"], key: bob.node.ballotKeyPair(chat: chat))
            let sealed = try mallory.identity.publicKey.agreementKey().seal(
                BallotEnvelope(chat: chat, ballot: ballot.encoded).encoded(size: secret.envelopeBytes))
            await bob.node.transmit(
                [.ballotRelay(publisher: mallory.identity.publicKey, holdMillis: 0, sealed: sealed)],
                to: carol.identity.publicKey)
            try await bed.advance(by: .seconds(1))

            // When mallory, its publisher, publishes it herself on arrival and hands nothing to alice
            let held = try mallory.node.heldBallots(of: poll)
            #expect(held.count == 1)
            for key in held.keys { _ = try await mallory.node.store.deleteLocalData(message: poll, key: key) }
            _ = try await mallory.node.send(
                chat: chat, tag: .pollSecretBallot, content: ballot.encoded,
                references: [MessageReference(id: poll, tag: .pollSecretBallot)])
            try await bed.advance(by: .seconds(90))

            // Then every node refuses to count it (only the creator publishes), and says why
            for peer in bed.peers {
                let snapshot = try peer.node.pollSnapshot(chat: chat, poll: poll)
                #expect(snapshot.phase == .closed)
                #expect(snapshot.tally.map { $0.up + $0.down } == 0)
                #expect(snapshot.secret?.tally.byOthers == 1 && snapshot.secret?.tally.rejected == 0)
            }
            #expect(try alice.node.pollSnapshot(chat: chat, poll: poll).secret?.tally.counted == 0)
        }
    }

    @Test func aCreatorThatDropsABallotByItsChoiceIsShownToOnEveryNodeWithoutNamingTheVoter() async throws {
        // Given six members and alice's secret poll; bob votes down, carol and dave up
        let bed = try await PumpedPeers.make(count: 6)
        let (alice, bob) = (bed.peers[0], bed.peers[1])
        try await bed.running {
            let (chat, poll, _) = try await bed.secretPoll()
            let cast = try await bob.node.castSecretBallot(chat: chat, poll: poll, choices: ["down"])
            for voter in bed.peers[2...3] {
                _ = try await voter.node.castSecretBallot(chat: chat, poll: poll, choices: ["up"])
            }

            // When the publishers hand their ballots to alice, and alice, reading them, drops the one for
            // "down" each time it comes (publishers and bob send it again until they see it published)
            try await bed.advance(by: .seconds(60))
            var dropped = 0
            for _ in 0..<70 {
                for (key, value) in try alice.node.heldBallots(of: poll)
                where try SecretBallot(decoding: Hex.decode(value)).selection == ["down"] {
                    _ = try await alice.node.store.deleteLocalData(message: poll, key: key)
                    dropped += 1
                }
                try await bed.advance(by: .milliseconds(500))
            }
            #expect(dropped > 0)

            // Then the count leaves it out, but every node shows one ballot left out, revealed by bob's
            // publishers (which had committed to it before handing it over), and no one is named as its voter
            let publishers = Set(cast.paths.map(\.publisher))
            for peer in bed.peers {
                let snapshot = try peer.node.pollSnapshot(chat: chat, poll: poll)
                #expect(snapshot.phase == .closed && snapshot.tally.map { [$0.up, $0.down] } == [2, 0])
                #expect(snapshot.secret?.tally.suppressed == 1)
                #expect(snapshot.secret?.tally.suppressionRevealedBy == publishers)
                let commits = try peer.node.store.messages(
                    matching: MessageCriteria(chat: chat, tag: .pollBallotCommit, referencing: poll))
                #expect(!commits.isEmpty && commits.allSatisfy { $0.message.author != alice.identity.publicKey })
            }
            #expect(try bob.node.pollSnapshot(chat: chat, poll: poll).secret?.ownBallot == .notCounted)
            // and no publisher keeps its salts or ballots after the close
            for peer in bed.peers {
                #expect(try peer.node.store.localData(message: poll, key: LocalDataKey.ballotCommitment) == nil)
            }
        }
    }

    @Test func anHonestCreatorsPollShowsNothingLeftOutAndPublishersForgetTheirCommitments() async throws {
        // Given six members and alice's secret poll with three votes
        let bed = try await PumpedPeers.make(count: 6)
        try await bed.running {
            let (chat, poll, _) = try await bed.secretPoll()
            for voter in bed.peers[1...3] {
                _ = try await voter.node.castSecretBallot(chat: chat, poll: poll, choices: ["up"])
            }
            try await bed.advance(by: .seconds(95))

            // Then commitments were made, no reveal was needed, and nothing is shown as left out
            for peer in bed.peers {
                let snapshot = try peer.node.pollSnapshot(chat: chat, poll: poll)
                #expect(snapshot.tally.map(\.up) == 3 && snapshot.secret?.tally.suppressed == 0)
                #expect(
                    try !peer.node.store.messages(
                        matching: MessageCriteria(chat: chat, tag: .pollBallotCommit, referencing: poll)
                    ).isEmpty)
                #expect(
                    try peer.node.store.messages(
                        matching: MessageCriteria(chat: chat, tag: .pollBallotReveal, referencing: poll)
                    ).isEmpty)
                #expect(try peer.node.store.localData(message: poll, key: LocalDataKey.ballotCommitment) == nil)
            }
        }
    }
}
