import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Testing

/// Property: whatever order, duplication and loss the network applies, five peers holding the
/// same messages compute the same options-poll outcome.
struct OptionsPollConvergenceTests {
    @Test(arguments: [11, 29] as [UInt64]) func fivePeersAgreeOnAnOptionsPoll(seed: UInt64) async throws {
        // Given five peers on a network that drops 15%, duplicates 5% and reorders (seeded)
        let bed = try await PumpedPeers.make(
            count: 5, conditions: .init(lossRate: 0.15, duplicateRate: 0.05, reorder: true), seed: seed)
        let peers = bed.peers
        try await bed.running {
            let chat = try await peers[0].node.createChat(
                title: "Offsite", members: peers.dropFirst().map(\.identity.publicKey))
            let spec = PollSpec(
                question: "Where?", options: ["Lake", "Hills", "Beach"], maxVotes: 2, allowAnswers: true,
                allowSuggestions: true)
            let poll = try await peers[0].node.createPoll(chat: chat.id, spec: spec).message.id
            try await bed.advance(by: .seconds(10)) // retransmits and sync repair what the network lost
            for peer in peers { #expect((try? peer.node.pollSnapshot(chat: chat.id, poll: poll)) != nil) }
            // When every peer votes, changes its mind at random, and some suggest or answer
            _ = try await peers[1].node.suggestOption(chat: chat.id, poll: poll, text: "City")
            _ = try await peers[2].node.answerPoll(chat: chat.id, poll: poll, text: "anything but rain")
            var random = SplitMix64(seed: seed)
            for round in 0..<3 {
                for peer in peers {
                    let choice = ["Lake", "Hills", "Beach"][Int(random.next() % 3)]
                    if round == 2, random.next() % 2 == 0 {
                        _ = try? await peer.node.removeVote(chat: chat.id, poll: poll)
                    } else if (try? await peer.node.postVote(chat: chat.id, poll: poll, choices: [choice])) == nil {
                        _ = try? await peer.node.removeVote(chat: chat.id, poll: poll)
                    }
                }
            }
            // Then all five hold the same messages and compute the same outcome
            // Every message is in its author's store, so the union is the whole set
            let all = try peers.reduce(into: Set<MessageID>()) { union, peer in
                union.formUnion(
                    try peer.node.store.messages(matching: MessageCriteria(chat: chat.id)).map(\.message.id))
            }
            try await bed.advance(by: .seconds(20))
            for (index, peer) in peers.enumerated() {
                #expect(
                    Set(try peer.node.store.messages(matching: MessageCriteria(chat: chat.id)).map(\.message.id))
                        == all, "peer \(index) did not converge")
            }
            let outcomes = try peers.map { try #require(try $0.node.pollSnapshot(chat: chat.id, poll: poll).outcome) }
            #expect(outcomes.allSatisfy { $0 == outcomes[0] })
            #expect(outcomes[0].options.count == 4)
            #expect(outcomes[0].answers.count == 1)
            #expect(outcomes[0].ballots.allSatisfy { $0.options.count <= 2 })
        }
        #expect(bed.network.counts.dropped > 0, "the network was supposed to lose datagrams")
    }
}

struct PollUpdatesTests {
    @Test func actionsShowUpInThePollsUpdatesSequence() async throws {
        // Given a node with a chat and an options poll, following the poll's updates
        let network = InMemoryNetwork()
        let peers = try LossyNetworkConvergenceTests.makePeers(network, count: 2)
        let node = peers[0].node
        let chat = try await node.createChat(title: "API", members: [peers[1].identity.publicKey])
        let spec = PollSpec(question: "Tabs?", options: ["Tabs", "Spaces"], unique: true, allowAnswers: true)
        let poll = try await node.createPoll(chat: chat.id, spec: spec).message.id
        var updates = node.pollUpdates(chat: chat.id, poll: poll).makeAsyncIterator()
        #expect(try await updates.next()?.outcome?.totalVotes == 0)

        // When the user votes, changes the vote, answers and closes
        _ = try await node.postVote(chat: chat.id, poll: poll, choices: ["Tabs"])
        _ = try await node.postVote(chat: chat.id, poll: poll, choices: ["Spaces"])
        _ = try await node.answerPoll(chat: chat.id, poll: poll, text: "spaces, obviously")
        _ = try await node.closePoll(chat: chat.id, poll: poll)

        // Then the updates end in the closed state, with the replaced vote
        var last: PollSnapshot?
        for _ in 0..<10 {
            guard let next = try await updates.next() else { break }
            last = next
            if next.isClosed { break }
        }
        #expect(last?.isClosed == true)
        #expect(try node.pollSnapshot(chat: chat.id, poll: poll).ownVotes == ["2"])
        #expect(try node.pollVotes(chat: chat.id, poll: poll, answers: true).items.map(\.text) == ["spaces, obviously"])
        await #expect(throws: NodeError.self) { try await node.postVote(chat: chat.id, poll: poll, choices: ["Tabs"]) }
    }
}
