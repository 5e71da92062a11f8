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
            let invite = try await alice.node.createChat(title: "Board", members: bed.peers.dropFirst().map(\.identity.publicKey))
            try await bed.settle()
            try await alice.node.prepareSecretPolls(chat: invite.id)
            try await bed.settle()
            for peer in bed.peers {
                #expect(try peer.node.store.messages(matching: MessageCriteria(chat: invite.id, tag: .ballotKey)).count == 4)
            }
            let closes = bed.clock.wallMillis + 60_000
            let created = try await alice.node.createSecretPoll(chat: invite.id, question: .yesNo("Raise dues?"), closesAtMillis: closes)
            #expect(created.withoutKey.isEmpty)
            try await bed.settle()

            // When bob votes up, carol down and dave up
            let cast = try await bob.node.castSecretBallot(chat: invite.id, poll: created.poll.id, choices: ["up"])
            #expect(cast.firstRelay != bob.identity.publicKey && cast.publisher != bob.identity.publicKey && cast.firstRelay != cast.publisher)
            _ = try await carol.node.castSecretBallot(chat: invite.id, poll: created.poll.id, choices: ["down"])
            _ = try await bed.peers[3].node.castSecretBallot(chat: invite.id, poll: created.poll.id, choices: ["UP"])
            try await bed.advance(by: .seconds(10))

            // Then before the closing time no ballot is published anywhere and nothing is counted
            for peer in bed.peers {
                let snapshot = try peer.node.pollSnapshot(chat: invite.id, poll: created.poll.id)
                #expect(try peer.node.store.messages(matching: MessageCriteria(chat: invite.id, tag: .pollSecretBallot)).isEmpty)
                #expect(snapshot.tally.map { $0.up + $0.down } == 0)
                #expect(snapshot.secret?.resultsFinal == false)
            }
            #expect(try bob.node.pollSnapshot(chat: invite.id, poll: created.poll.id).secret?.ownBallot == .relayed)
            await #expect(throws: NodeError.self) {
                try await bob.node.castSecretBallot(chat: invite.id, poll: created.poll.id, choices: ["down"])
            }

            // When the closing time and the release window pass
            try await bed.advance(by: .seconds(51))
            try await bed.advance(by: .seconds(20))

            // Then every node shows up 2, down 1, closed, and no voter
            for peer in bed.peers {
                let snapshot = try peer.node.pollSnapshot(chat: invite.id, poll: created.poll.id)
                #expect(snapshot.phase == .closed)
                #expect(snapshot.tally.map { [$0.up, $0.down] } == [2, 1])
                #expect(snapshot.tally?.ballots.isEmpty == true)
                #expect(snapshot.secret?.tally.counted == 3 && snapshot.secret?.tally.rejected == 0)
            }
            #expect(try bob.node.pollSnapshot(chat: invite.id, poll: created.poll.id).secret?.ownBallot == .counted)
            #expect(try bob.node.pollSnapshot(chat: invite.id, poll: created.poll.id).ownVotes == ["up"])
            #expect(try alice.node.pollSnapshot(chat: invite.id, poll: created.poll.id).secret?.ownBallot == nil)
        }
    }
}
