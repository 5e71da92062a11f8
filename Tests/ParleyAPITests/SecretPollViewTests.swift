import Foundation
import ParleyAPI
import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Testing

/// The secret poll view carries the voter's anonymity set, so every front end (CLI, full screen,
/// web) can say "your vote is hidden among N members" before casting (issue 34, finding 2).
struct SecretPollViewTests {
    /// One node's chat with `others` members whose ballot keys (sealed for the chat's epoch and
    /// signed by them) it holds, as if they had arrived.
    static func chatWithKeys(_ node: Node, others: Int) async throws -> ChatID {
        let members = try (0..<others).map { _ in try Identity.generate() }
        let chat = try await node.createChat(title: "Board", members: members.map(\.publicKey)).id
        let key = try #require(try node.store.membership(of: chat)?.sealingKey)
        let keys = try members.map { member in
            let ballotKey = try BallotKeyPair(identity: member, chat: chat.rawRepresentation).publicKey
                .rawRepresentation
            return try MessageDraft(
                chat: chat, author: member.publicKey, sequence: 1, lamport: 1, timestampMillis: 0, tag: .ballotKey,
                content: SealedContent.seal(ballotKey, with: key, chat: chat, author: member.publicKey, sequence: 1)
            ).signed(by: member)
        }
        _ = try await node.store.insert(keys, receivedAtMillis: 0, ownAuthor: node.me)
        return chat
    }

    @Test func aSecretPollsViewSaysHowManyMembersAVoteHidesAmong() async throws {
        // Given a chat of four with every ballot key, and its creator's secret poll
        let node = try APITestNode.make()
        let chat = try await Self.chatWithKeys(node, others: 3)
        let poll = try await node.createSecretPoll(
            chat: chat, question: .yesNo("Raise dues?"), closesAtMillis: Int64.max >> 12
        ).poll.id

        // Then its view names the four electors, a vote hidden among the three besides the creator, no problem
        let view = PollResultsView(try node.pollSnapshot(chat: chat, poll: poll), names: [:], myVote: nil)
        let secret = try #require(view.secret)
        #expect(secret.electorate.count == 4)
        #expect(secret.hiddenAmong == 3)
        #expect(secret.electorateProblem == nil)
        let json = try #require(String(data: JSONEncoder().encode(view), encoding: .utf8))
        #expect(json.contains("\"hiddenAmong\":3"))
    }

    @Test func creatingASecretPollInAChatOfThreeAnswersWithTheReasonAsKindInvalid() async throws {
        // Given a chat of three with every ballot key
        let node = try APITestNode.make()
        let chat = try await Self.chatWithKeys(node, others: 2)

        // When its creator asks for a secret poll, then the failure says why, as kind invalid
        let thrown = await #expect(throws: NodeError.self) {
            try await node.createSecretPoll(
                chat: chat, question: .yesNo("Raise dues?"), closesAtMillis: Int64.max >> 12)
        }
        let failure = APIFailure(try #require(thrown))
        #expect(failure.kind == .invalid)
        #expect(failure.message.contains("at least 3 members besides you with ballot keys"))
    }
}
