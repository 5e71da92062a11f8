import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Testing

/// Finding 7 of issue 34, after the close: a voter's node keeps that its user voted, not how (unless
/// asked), and no node keeps sending ballots to a poll's creator that is no longer a member (nor
/// does that creator keep trying to close its poll).
struct SecretBallotAfterCloseTests {
    /// Every local data value `node` keeps on any message of `chat`, by message and key.
    private static func localData(of node: Node, in chat: ChatID) throws -> [(
        message: MessageID, key: String, value: String
    )] {
        try node.store.messages(matching: MessageCriteria(chat: chat)).flatMap { stored in
            try node.store.allLocalData(message: stored.id).map { (stored.id, $0.key, $0.value) }
        }
    }

    @Test func afterTheCloseAVoterKeepsThatItVotedButNeitherItsChoiceNorItsBallotUnlessItAskedToKeepTheChoice()
        async throws
    {
        // Given four members and alice's secret poll; bob alone votes down, carol asks to keep her choice
        let bed = try await PumpedPeers.make(count: 4)
        let (alice, bob, carol, dave) = (bed.peers[0], bed.peers[1], bed.peers[2], bed.peers[3])
        try await bed.running {
            let chat = try await bed.secretPollChat()
            let poll = try await alice.node.createSecretPoll(
                chat: chat, question: .yesNo("Raise dues?"), closesAtMillis: bed.clock.wallMillis + 60_000
            ).poll.id
            try await bed.settle()
            _ = try await alice.node.castSecretBallot(chat: chat, poll: poll, choices: ["up"])
            _ = try await bob.node.castSecretBallot(chat: chat, poll: poll, choices: ["down"])
            _ = try await carol.node.castSecretBallot(chat: chat, poll: poll, choices: ["up"], keepChoice: true)
            _ = try await dave.node.castSecretBallot(chat: chat, poll: poll, choices: ["up"])
            try await bed.settle()
            let bobsBallot = try #require(try bob.node.store.localData(message: poll, key: LocalDataKey.secretBallot))
            #expect(try bob.node.pollSnapshot(chat: chat, poll: poll).ownVotes == ["down"])

            // When the closing time and the creator's release window pass
            try await bed.advance(by: .seconds(61))
            try await bed.advance(by: .seconds(30))

            // Then bob's node holds no trace of his choice or of his ballot's bytes in any local data,
            let bobs = try Self.localData(of: bob.node, in: chat)
            #expect(!bobs.contains { $0.value.contains(bobsBallot) || $0.value.contains("down") }, "\(bobs)")
            #expect(try bob.node.store.localData(message: poll, key: LocalDataKey.pollVote) == nil)
            // yet it shows that he voted, and that his ballot counted, with no choice
            let bobsView = try bob.node.pollSnapshot(chat: chat, poll: poll)
            #expect(bobsView.phase == .closed && bobsView.tally.map { [$0.up, $0.down] } == [3, 1])
            #expect(bobsView.secret?.ownBallot == .counted && bobsView.ownVotes.isEmpty)
            // and a closed poll still takes no second ballot
            await #expect(throws: NodeError.self) {
                try await bob.node.castSecretBallot(chat: chat, poll: poll, choices: ["up"])
            }
            // The creator's own choice is erased by its own close, as on every voter's node
            let alices = try alice.node.pollSnapshot(chat: chat, poll: poll)
            #expect(alices.secret?.ownBallot == .counted && alices.ownVotes.isEmpty)
            #expect(try alice.node.store.localData(message: poll, key: LocalDataKey.pollVote) == nil)
            // Carol asked to keep her choice: it stays, her ballot's bytes do not
            let carols = try carol.node.pollSnapshot(chat: chat, poll: poll)
            #expect(carols.secret?.ownBallot == .counted && carols.ownVotes == ["up"])
            #expect(try carol.node.store.localData(message: poll, key: LocalDataKey.secretBallot) == nil)
        }
    }

    @Test func publishersWhosePollCreatorLeftTheChatDropItsBallotsAndStopSendingThemToIt() async throws {
        // Given five members of alice's chat, bob's secret poll, and three ballots on their way
        let bed = try await PumpedPeers.make(count: 5)
        let (alice, bob) = (bed.peers[0], bed.peers[1])
        try await bed.running {
            let chat = try await bed.secretPollChat()
            let poll = try await bob.node.createSecretPoll(
                chat: chat, question: .yesNo("Raise dues?"), closesAtMillis: bed.clock.wallMillis + 60_000
            ).poll.id
            try await bed.settle()
            for voter in bed.peers[2...] {
                _ = try await voter.node.castSecretBallot(chat: chat, poll: poll, choices: ["up"])
            }
            try await bed.advance(by: .seconds(10))

            // When alice removes bob from the chat before the closing time, and the closing time passes
            try await alice.node.removeMembers(chat: chat, [bob.identity.publicKey])
            try await bed.settle()
            try await bed.advance(by: .seconds(55))
            let refusedAtBob = await bob.node.status().rejections["ballotRelayRefused"] ?? 0

            // Then no member holds a ballot for bob any more, and for the next minute nothing is sent to him
            for peer in bed.peers where peer.identity.publicKey != bob.identity.publicKey {
                #expect(try peer.node.heldBallots(of: poll).isEmpty)
            }
            try await bed.advance(by: .seconds(30))
            try await bed.advance(by: .seconds(30))
            #expect(await bob.node.status().rejections["ballotRelayRefused"] ?? 0 == refusedAtBob)
            // and bob's node, out of the chat, no longer tries to close its poll
            #expect(bob.node.pollDeadlines.isEmpty)
        }
    }
}
