import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Synchronization
import Testing

/// Group membership over a lossy network: removal re-keys, addition brings the history, and only
/// the creator of a group changes it.
struct MembershipTests {
    typealias Peers = LossyNetworkConvergenceTests

    @Test func aRemovedMemberCannotReadWhatIsSentAfterwardsEvenIfItIsForwarded() async throws {
        // Given alice's group with bob and carol on a network that loses 15%
        let bed = try await PumpedPeers.make(
            count: 3, conditions: .init(lossRate: 0.15, duplicateRate: 0.05, reorder: true), seed: 7)
        let (alice, bob, carol) = (bed.peers[0], bed.peers[1], bed.peers[2])
        try await bed.running {
            let chat = try await alice.node.createChat(
                title: "Team", members: [bob.identity.publicKey, carol.identity.publicKey]
            ).id
            let before = try await alice.node.sendText(chat: chat, "before").message
            try await bed.advance(by: .seconds(10)) // retransmits and sync repair what the network lost
            #expect(try carol.node.store.message(before.id)?.message.text == "before")

            // When alice removes carol and then writes again
            try await alice.node.removeMembers(chat: chat, [carol.identity.publicKey])
            let after = try await alice.node.sendText(chat: chat, "after the removal").message
            try await bed.advance(by: .seconds(10))
            #expect(try bob.node.store.message(after.id)?.message.text == "after the removal")
            #expect(try carol.node.store.membership(of: chat)?.epoch == 1)

            // and bob forwards the new message to carol anyway
            await bob.node.transmit([.message(after.encoded)], to: carol.identity.publicKey)
            try await bed.settle()

            // Then carol holds no key that opens it, and whatever she stored of it is unreadable
            let carolsKeys = try carol.node.store.chatKeys(chat)
            #expect(carolsKeys.map(\.epoch) == [0])
            #expect(
                SealedContent.open(
                    after.content, keys: carolsKeys.map(\.key), chat: chat, author: after.author,
                    sequence: after.sequence) == nil)
            if let stored = try carol.node.store.message(after.id) {
                #expect(stored.isSealed && stored.message.text.isEmpty)
            }
            // and she can no longer post in it, while bob sees only alice and himself as members
            await #expect(throws: NodeError.self) { try await carol.node.sendText(chat: chat, "hello?") }
            #expect(
                try bob.node.store.members(of: chat)?.sorted()
                    == [alice.identity.publicKey, bob.identity.publicKey].sorted())
        }
    }

    @Test func aMessageCheckedBeforeARemovalIsSealedForTheMembersAfterIt() async throws {
        // Given alice's group with bob and carol, where alice's hook removes carol between the check
        // of a send and its commit
        let chatBox = Mutex<ChatID?>(nil), aliceBox = Mutex<Node?>(nil), carolBox = Mutex<PeerID?>(nil)
        let bed = try await PumpedPeers.make(count: 3) { index, configuration in
            guard index == 0 else { return }
            configuration.sendHooks.willSend = { outgoing in
                if outgoing.content == Array("racing".utf8), let node = aliceBox.withLock({ $0 }),
                    let chat = chatBox.withLock({ $0 }),
                    let carol = carolBox.withLock({ $0 })
                {
                    _ = try? await node.removeMembers(chat: chat, [carol])
                }
                return .send(outgoing)
            }
        }
        let (alice, bob, carol) = (bed.peers[0], bed.peers[1], bed.peers[2])
        aliceBox.withLock { $0 = alice.node }
        carolBox.withLock { $0 = carol.identity.publicKey }
        try await bed.running {
            let chat = try await alice.node.createChat(
                title: "Team", members: [bob.identity.publicKey, carol.identity.publicKey]
            ).id
            chatBox.withLock { $0 = chat }
            try await bed.settle()
            #expect(try carol.node.store.chat(chat) != nil && bob.node.store.chat(chat) != nil)

            // When alice sends, checked while carol is still a member
            let racing = try Message(decoding: try await alice.node.sendText(chat: chat, "racing").message.encoded)

            // Then it is sealed for the epoch the removal started, and bob reads it while carol cannot
            #expect(SealedContent.epoch(of: racing.content) == 1)
            try await bed.settle()
            #expect(try bob.node.store.message(racing.id)?.message.text == "racing")
            let carolsKeys = try carol.node.store.chatKeys(chat)
            #expect(!carolsKeys.isEmpty && carolsKeys.allSatisfy { $0.epoch == 0 })
            #expect(
                SealedContent.open(
                    racing.content, keys: carolsKeys.map(\.key), chat: chat, author: racing.author,
                    sequence: racing.sequence) == nil)
        }
    }

    @Test func sendsCommittedAfterARemovalAreSealedForTheNewEpochWhateverTheirBatch() async throws {
        // Given alice's group with bob and carol
        let bed = try await PumpedPeers.make(count: 3)
        let (alice, bob, carol) = (bed.peers[0], bed.peers[1], bed.peers[2])
        try await bed.running {
            let chat = try await alice.node.createChat(
                title: "Team", members: [bob.identity.publicKey, carol.identity.publicKey]
            ).id
            try await bed.settle()
            #expect(try carol.node.store.chat(chat) != nil)

            // When she removes carol while sending 40 messages at once (so some share the removal's batch)
            let sent = try await withThrowingTaskGroup(of: Message?.self) { group in
                group.addTask { try await alice.node.removeMembers(chat: chat, [carol.identity.publicKey]).message }
                for index in 0..<40 {
                    group.addTask { try await alice.node.sendText(chat: chat, "note \(index)").message }
                }
                return try await group.reduce(into: [Message]()) { if let message = $1 { $0.append(message) } }
            }

            // Then every message numbered after the removal is sealed for epoch 1, every earlier one for epoch 0
            let removal = try #require(sent.first { $0.tag == .membership })
            for text in try sent.filter({ $0.tag == .text }).map({ try Message(decoding: $0.encoded) }) {
                #expect(
                    SealedContent.epoch(of: text.content) == (text.sequence > removal.sequence ? 1 : 0),
                    "seq \(text.sequence)")
            }
        }
    }

    @Test func anAddedMemberReadsTheHistoryAndTalliesLikeEveryoneElse() async throws {
        // Given alice's group with bob, a poll and two votes
        let bed = try await PumpedPeers.make(
            count: 3, conditions: .init(lossRate: 0.1, duplicateRate: 0, reorder: true), seed: 3)
        let (alice, bob, dave) = (bed.peers[0], bed.peers[1], bed.peers[2])
        try await bed.running {
            let chat = try await alice.node.createChat(title: "Team", members: [bob.identity.publicKey]).id
            let poll = try await alice.node.createPoll(
                chat: chat, spec: PollSpec(question: "Where?", options: ["Lake", "Hills"])
            ).message.id
            try await bed.advance(by: .seconds(10)) // retransmits and sync repair what the network lost
            #expect((try? bob.node.pollSnapshot(chat: chat, poll: poll)) != nil)
            _ = try await alice.node.postVote(chat: chat, poll: poll, choices: ["Lake"])
            _ = try await bob.node.postVote(chat: chat, poll: poll, choices: ["Hills"])

            // When alice adds dave, who then votes too
            try await alice.node.addMembers(chat: chat, [dave.identity.publicKey])
            try await bed.advance(by: .seconds(10))
            #expect(try dave.node.store.membership(of: chat)?.members.contains(dave.identity.publicKey) == true)
            #expect((try? dave.node.pollSnapshot(chat: chat, poll: poll).outcome?.ballots.count) == 2)
            _ = try await dave.node.postVote(chat: chat, poll: poll, choices: ["Lake"])

            // Then dave reads the poll written before he joined, and all three compute the same outcome
            #expect(try dave.node.store.message(poll)?.isSealed == false)
            try await bed.advance(by: .seconds(10))
            for peer in bed.peers {
                #expect((try? peer.node.pollSnapshot(chat: chat, poll: poll).outcome?.ballots.count) == 3)
            }
            let outcomes = try bed.peers.map { try #require(try $0.node.pollSnapshot(chat: chat, poll: poll).outcome) }
            #expect(outcomes.allSatisfy { $0 == outcomes[0] })
        }
    }

    @Test func onlyTheCreatorChangesAGroupAndADirectChatNeverChanges() async throws {
        let bed = try await PumpedPeers.make(count: 3)
        let (alice, bob, carol) = (bed.peers[0], bed.peers[1], bed.peers[2])
        try await bed.running {
            let group = try await alice.node.createChat(title: "Team", members: [bob.identity.publicKey]).id
            try await bed.settle()
            #expect(try bob.node.store.chat(group) != nil)
            await #expect(throws: NodeError.self) {
                try await bob.node.addMembers(chat: group, [carol.identity.publicKey])
            }
            await #expect(throws: NodeError.self) {
                try await alice.node.removeMembers(chat: group, [alice.identity.publicKey])
            }
            await #expect(throws: NodeError.self) {
                try await alice.node.addMembers(chat: group, [bob.identity.publicKey])
            }
            let direct = try await alice.node.createChat(title: "", members: [bob.identity.publicKey], kind: .direct)
            #expect(direct.kind == .direct)
            await #expect(throws: NodeError.self) {
                try await alice.node.addMembers(chat: direct.id, [carol.identity.publicKey])
            }
            await #expect(throws: NodeError.self) {
                try await alice.node.createChat(
                    title: "", members: [bob.identity.publicKey, carol.identity.publicKey], kind: .direct)
            }
        }
    }

    @Test func concurrentChangesNeverClaimTheSameEpoch() async throws {
        // Given alice's group with bob and carol
        let peers = try Peers.makePeers(InMemoryNetwork(), count: 4)
        let (alice, bob, carol, dave) = (peers[0], peers[1], peers[2], peers[3])
        let chat = try await alice.node.createChat(
            title: "Team", members: [bob.identity.publicKey, carol.identity.publicKey]
        ).id
        // When she removes carol and adds dave at the same moment
        async let removal = Result { try await alice.node.removeMembers(chat: chat, [carol.identity.publicKey]) }
        async let addition = Result { try await alice.node.addMembers(chat: chat, [dave.identity.publicKey]) }
        let outcomes = await [removal, addition]
        // Then each change that went through has an epoch of its own, and the members are what they say
        let applied = outcomes.compactMap { try? $0.get() }
        #expect(!applied.isEmpty)
        let epochs = try applied.map { try MembershipChange(decoding: $0.message.content).epoch }
        #expect(Set(epochs).count == epochs.count)
        let membership = try #require(try alice.node.store.membership(of: chat))
        #expect(membership.epoch == UInt32(applied.count))
        #expect(membership.members.contains(carol.identity.publicKey) == ((try? outcomes[0].get()) == nil))
        #expect(membership.members.contains(dave.identity.publicKey) == ((try? outcomes[1].get()) != nil))
    }
}
