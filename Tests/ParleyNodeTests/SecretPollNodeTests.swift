import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Testing

/// Secret polls between real nodes on one stepped clock: ballots travel through two relays, are
/// published at the closing time and counted at the creator's close, identically everywhere.
struct SecretPollNodeTests {
    @Test func ballotsRelayedThroughTwoMembersAreCountedAtTheCloseOnEveryNodeWithoutVoters() async throws {
        // Given four members of one chat and alice's secret yes/no poll closing in a minute
        let bed = try await PumpedPeers.make(count: 4)
        let (alice, bob, carol) = (bed.peers[0], bed.peers[1], bed.peers[2])
        try await bed.running {
            let invite = try await Self.preparedBoard(bed)
            for peer in bed.peers {
                #expect(
                    try peer.node.store.messages(matching: MessageCriteria(chat: invite.id, tag: .ballotKey)).count == 4
                )
            }
            let closes = bed.clock.wallMillis + 60_000
            let created = try await alice.node.createSecretPoll(
                chat: invite.id, question: .yesNo("Raise dues?"), closesAtMillis: closes)
            #expect(created.withoutKey.isEmpty)
            try await bed.settle()

            // When bob votes up, carol down and dave up
            let cast = try await bob.node.castSecretBallot(chat: invite.id, poll: created.poll.id, choices: ["up"])
            // (three others are reachable: one path, two members besides bob)
            #expect(cast.paths.count == 1)
            let path = try #require(cast.paths.first)
            #expect(
                path.firstRelay != bob.identity.publicKey && path.publisher != bob.identity.publicKey
                    && path.firstRelay != path.publisher)
            _ = try await carol.node.castSecretBallot(chat: invite.id, poll: created.poll.id, choices: ["down"])
            _ = try await bed.peers[3].node.castSecretBallot(chat: invite.id, poll: created.poll.id, choices: ["UP"])
            try await bed.advance(by: .seconds(10))

            // Then before the closing time no ballot is published anywhere and nothing is counted
            for peer in bed.peers {
                let snapshot = try peer.node.pollSnapshot(chat: invite.id, poll: created.poll.id)
                #expect(
                    try peer.node.store.messages(matching: MessageCriteria(chat: invite.id, tag: .pollSecretBallot))
                        .isEmpty)
                #expect(snapshot.tally.map { $0.up + $0.down } == 0)
                #expect(snapshot.secret?.resultsFinal == false)
            }
            #expect(try bob.node.pollSnapshot(chat: invite.id, poll: created.poll.id).secret?.ownBallot == .relayed)
            await #expect(throws: NodeError.self) {
                try await bob.node.castSecretBallot(chat: invite.id, poll: created.poll.id, choices: ["down"])
            }

            // When the closing time and the release window pass
            try await bed.advance(by: .seconds(51))
            try await bed.advance(by: .seconds(30))

            // Then every node shows up 2, down 1, closed, and no voter
            for peer in bed.peers {
                let snapshot = try peer.node.pollSnapshot(chat: invite.id, poll: created.poll.id)
                #expect(snapshot.phase == .closed)
                #expect(snapshot.tally.map { [$0.up, $0.down] } == [2, 1])
                #expect(snapshot.tally?.ballots.isEmpty == true)
                #expect(snapshot.secret?.tally.counted == 3 && snapshot.secret?.tally.rejected == 0)
            }
            #expect(try bob.node.pollSnapshot(chat: invite.id, poll: created.poll.id).secret?.ownBallot == .counted)
            // (his node keeps that he voted, not how: SecretBallotAfterCloseTests)
            #expect(try bob.node.pollSnapshot(chat: invite.id, poll: created.poll.id).ownVotes.isEmpty)
            #expect(try alice.node.pollSnapshot(chat: invite.id, poll: created.poll.id).secret?.ownBallot == nil)
        }
    }

    /// A chat of all the bed's peers, created by the first, whose ballot keys are all published.
    private static func preparedBoard(_ bed: PumpedPeers) async throws -> ChatInvite {
        let invite = try await bed.peers[0].node.createChat(
            title: "Board", members: bed.peers.dropFirst().map(\.identity.publicKey))
        try await bed.settle()
        try await bed.peers[0].node.prepareSecretPolls(chat: invite.id)
        try await bed.settle()
        return invite
    }

    /// A chat of `count` members whose ballot keys are all published, and alice's secret yes/no poll
    /// closing in a minute.
    private static func boardWithPoll(_ bed: PumpedPeers) async throws -> (
        chat: ChatID, poll: MessageID, closesAt: Int64
    ) {
        let alice = bed.peers[0]
        let invite = try await preparedBoard(bed)
        let closesAt = bed.clock.wallMillis + 60_000
        let created = try await alice.node.createSecretPoll(
            chat: invite.id, question: .yesNo("Raise dues?"), closesAtMillis: closesAt)
        try await bed.settle()
        return (invite.id, created.poll.id, closesAt)
    }

    @Test func aMemberWhoJoinsAfterThePollWasPostedIsToldItIsNotInTheElectorate() async throws {
        // Given a secret poll in a chat of four, and dave added afterwards
        let bed = try await PumpedPeers.make(count: 5)
        let (alice, dave) = (bed.peers[0], bed.peers[4])
        try await bed.running {
            let invite = try await alice.node.createChat(
                title: "Board", members: bed.peers[1...3].map(\.identity.publicKey))
            try await bed.settle()
            try await alice.node.prepareSecretPolls(chat: invite.id)
            try await bed.settle()
            let created = try await alice.node.createSecretPoll(
                chat: invite.id, question: .yesNo("Raise dues?"), closesAtMillis: bed.clock.wallMillis + 60_000)
            _ = try await alice.node.addMembers(chat: invite.id, [dave.identity.publicKey])
            try await bed.settle()

            // When dave votes, then he is told he is not in the electorate, and his node published its key for later polls
            let refusal = await #expect(throws: NodeError.self) {
                try await dave.node.castSecretBallot(chat: invite.id, poll: created.poll.id, choices: ["up"])
            }
            #expect(refusal?.kind == .notInElectorate)
            #expect(refusal?.description.contains("4 electors") == true)
            #expect(
                try alice.node.store.messages(matching: MessageCriteria(chat: invite.id, tag: .ballotKey)).map(
                    \.message.author
                )
                .contains(dave.identity.publicKey))
        }
    }

    @Test func aBallotWhoseRelayWentOfflineIsSentAgainThroughOthersAndCountedOnce() async throws {
        // Given five members and a secret poll
        let bed = try await PumpedPeers.make(count: 5)
        let (alice, bob) = (bed.peers[0], bed.peers[1])
        try await bed.running {
            let (chat, poll, _) = try await Self.boardWithPoll(bed)

            // When bob votes and one of his two relays (not the creator) goes offline before passing it on
            let cast = try await bob.node.castSecretBallot(chat: chat, poll: poll, choices: ["down"])
            let lost = [cast.paths[0].firstRelay, cast.paths[0].publisher].first { $0 != alice.identity.publicKey }!
            let offline = bed.peers.first { $0.identity.publicKey == lost }!
            await offline.node.shutdown()
            try await bed.advance(by: .seconds(59))
            #expect(try bob.node.pollSnapshot(chat: chat, poll: poll).secret?.ownBallot == .relayed)

            // Then after the closing time his node sends the same ballot through two others, and it counts once everywhere
            try await bed.advance(by: .seconds(10))
            try await bed.advance(by: .seconds(30))
            for peer in bed.peers where peer.identity.publicKey != lost {
                let snapshot = try peer.node.pollSnapshot(chat: chat, poll: poll)
                #expect(snapshot.phase == .closed)
                #expect(snapshot.tally.map { [$0.up, $0.down] } == [0, 1])
            }
            #expect(try bob.node.pollSnapshot(chat: chat, poll: poll).secret?.ownBallot == .counted)
        }
    }

    @Test func relaysRefuseEnvelopesFromOutsideTheChatAndCountBallotsThatDoNotOpen() async throws {
        // Given a secret poll among alice, bob and carol, and mallory, a peer of theirs outside the chat
        let bed = try await PumpedPeers.make(count: 4)
        let (bob, carol, mallory) = (bed.peers[1], bed.peers[2], bed.peers[3])
        try await bed.running {
            let invite = try await bed.peers[0].node.createChat(
                title: "Board", members: [bob.identity.publicKey, carol.identity.publicKey])
            try await bed.settle()
            _ = try await mallory.node.createChat(title: "Side", members: [bob.identity.publicKey])
            try await bed.settle()
            let sealed = try carol.identity.publicKey.agreementKey().seal(
                BallotEnvelope(chat: invite.id, ballot: [1, 2, 3]).encoded(size: 512))

            // When mallory asks bob to relay to carol, and bob (a member) sends carol an envelope whose ballot is garbage
            await mallory.node.transmit(
                [.ballotRelay(publisher: carol.identity.publicKey, holdMillis: 0, sealed: sealed)],
                to: bob.identity.publicKey)
            await bob.node.transmit(
                [.ballotRelay(publisher: carol.identity.publicKey, holdMillis: 0, sealed: sealed)],
                to: carol.identity.publicKey)
            await bob.node.transmit(
                [.ballotRelay(publisher: carol.identity.publicKey, holdMillis: 0, sealed: Array(sealed.reversed()))],
                to: carol.identity.publicKey)
            try await bed.settle()

            // Then bob refuses mallory's (no chat holds the three of them), and carol counts both of bob's as bad ballots
            #expect(await bob.node.status().rejections["ballotRelayRefused"] == 1)
            #expect(await carol.node.status().rejections["badBallot"] == 2)
            #expect(
                try carol.node.store.messages(matching: MessageCriteria(chat: invite.id, tag: .pollSecretBallot))
                    .isEmpty)
        }
    }

    @Test func aSecretOptionsPollRefusesWhatWouldNameAVoter() async throws {
        // Given a secret options poll among four members, and bob's ballot
        let bed = try await PumpedPeers.make(count: 4)
        let (alice, bob) = (bed.peers[0], bed.peers[1])
        try await bed.running {
            let invite = try await Self.preparedBoard(bed)
            let closes = bed.clock.wallMillis + 60_000
            let spec = PollSpec(
                question: "Where?", options: ["Lake", "Hills"], anonymous: true, closesAtMillis: closes)
            let poll = try await alice.node.createSecretPoll(
                chat: invite.id, question: .options(spec), closesAtMillis: closes
            ).poll.id
            try await bed.settle()
            let cast = try await bob.node.castSecretBallot(chat: invite.id, poll: poll, choices: ["hills"])
            #expect(cast.selection == ["2"])

            // Then a second vote is refused (a secret ballot is final), and an unvote, an answer, a list of
            // votes and an early close are each refused with a reason
            let second = await #expect(throws: NodeError.self) {
                try await bob.node.vote(chat: invite.id, poll: poll, choices: ["Lake"])
            }
            #expect(second?.description.contains("already voted") == true, "\(String(describing: second))")
            for refused in [
                { try await bob.node.removeVote(chat: invite.id, poll: poll) },
                { try await bob.node.answerPoll(chat: invite.id, poll: poll, text: "why not") },
                { try await alice.node.closePoll(chat: invite.id, poll: poll) },
            ] as [@Sendable () async throws -> StoredMessage] {
                let error = await #expect(throws: NodeError.self) { try await refused() }
                #expect(error?.description.contains("secret") == true)
            }
            #expect(throws: NodeError.self) { try bob.node.pollVotes(chat: invite.id, poll: poll) }
            #expect(try bob.node.store.messages(matching: MessageCriteria(chat: invite.id, referencing: poll)).isEmpty)
        }
    }

    @Test func aBallotCopiedIntoAMessageThatAlsoReferencesAnotherPollCountsThereOnNoNode() async throws {
        // Given poll A closing in a minute and poll B in two, among four members, and bob's ballot on A
        let bed = try await PumpedPeers.make(count: 4)
        let (alice, bob, mallory) = (bed.peers[0], bed.peers[1], bed.peers[3])
        try await bed.running {
            let invite = try await Self.preparedBoard(bed)
            let start = bed.clock.wallMillis
            let a = try await alice.node.createSecretPoll(
                chat: invite.id, question: .yesNo("A?"), closesAtMillis: start + 60_000
            ).poll.id
            let b = try await alice.node.createSecretPoll(
                chat: invite.id, question: .yesNo("B?"), closesAtMillis: start + 120_000
            ).poll.id
            try await bed.settle()
            _ = try await bob.node.castSecretBallot(chat: invite.id, poll: a, choices: ["up"])
            try await bed.advance(by: .seconds(80))

            // When mallory, after A's close, posts bob's published ballot again in a message referencing both polls
            let published = try mallory.node.store.messages(
                matching: MessageCriteria(chat: invite.id, tag: .pollSecretBallot, referencing: a))
            #expect(published.count == 1)
            let references = [a, b].map { MessageReference(id: $0, tag: .pollSecretBallot) }
            _ = try await mallory.node.send(
                chat: invite.id, tag: .pollSecretBallot, content: published[0].message.content, references: references)
            try await bed.settle()
            // and some nodes look at A first, others at B first
            for (index, peer) in bed.peers.enumerated() {
                for poll in index.isMultiple(of: 2) ? [a, b] : [b, a] {
                    _ = try peer.node.pollSnapshot(chat: invite.id, poll: poll)
                }
            }
            try await bed.advance(by: .seconds(90))

            // Then B counts nothing and refuses the copy on every node (not the creator's), and A still counts bob's ballot once
            for peer in bed.peers {
                let onB = try peer.node.pollSnapshot(chat: invite.id, poll: b)
                #expect(
                    onB.phase == .closed && onB.tally.map { $0.up + $0.down } == 0 && onB.secret?.tally.byOthers == 1)
                #expect(try peer.node.pollSnapshot(chat: invite.id, poll: a).tally.map { [$0.up, $0.down] } == [1, 0])
            }
        }
    }

    @Test func aKeyClaimedByTwoMembersLeavesBothOutOfTheElectorateAndPollsStillWork() async throws {
        // Given six members, and mallory (a modified client) publishing alice's ballot key as her own,
        // which is the call every other node answers with its key
        let bed = try await PumpedPeers.make(count: 6)
        let (alice, mallory) = (bed.peers[0], bed.peers[4])
        try await bed.running {
            let invite = try await alice.node.createChat(
                title: "Board", members: bed.peers.dropFirst().map(\.identity.publicKey))
            try await bed.settle()
            let alicesKey = try alice.node.ballotKeyPair(chat: invite.id).publicKey.rawRepresentation
            _ = try await mallory.node.send(chat: invite.id, tag: .ballotKey, content: alicesKey)
            try await bed.settle()
            #expect(
                try bed.peers[1].node.store.messages(matching: MessageCriteria(chat: invite.id, tag: .ballotKey)).count
                    == 6)

            // When bob creates a secret poll, then it lists the four others and not the two claiming one key
            let created = try await bed.peers[1].node.createSecretPoll(
                chat: invite.id, question: .yesNo("Go?"), closesAtMillis: bed.clock.wallMillis + 60_000)
            let secret = try #require(try ParleyCore.Poll(created.poll.message).secret)
            #expect(
                Set(secret.electorate.map(\.member))
                    == Set((bed.peers[1...3] + [bed.peers[5]]).map(\.identity.publicKey)))
        }
    }
}
