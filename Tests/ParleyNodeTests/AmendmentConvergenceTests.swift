import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Testing

/// Property: on a lossy, duplicating, reordering network (so edits, deletions and pins reach each
/// node in its own order), four members, one of them hostile, end with the same history, the same
/// amendments of every message, the same pinned list and the same tally (PROTOCOL.md §13d).
struct AmendmentConvergenceTests {
    typealias Peers = LossyNetworkConvergenceTests

    @Test(arguments: [5, 23] as [UInt64])
    func fourMembersIncludingAHostileOneAgreeAfterEditsDeletesAndPins(seed: UInt64) async throws {
        // Given four members on a network that drops 15%, duplicates 5% and reorders
        let bed = try await PumpedPeers.make(
            count: 4, conditions: .init(lossRate: 0.15, duplicateRate: 0.05, reorder: true), seed: seed)
        let peers = bed.peers
        let (alice, bob, carol, mallory) = (peers[0].node, peers[1].node, peers[2].node, peers[3].node)
        try await bed.running {
            let chat = try await alice.createChat(
                title: "Everyday", members: peers.dropFirst().map(\.identity.publicKey)
            ).id
            try await bed.advance(by: .seconds(10)) // every member has the invite
            let hello = try await alice.sendText(chat: chat, "hello").message.id
            let plan = try await bob.sendText(chat: chat, "lunch at noon").message.id
            let rumour = try await carol.sendText(chat: chat, "a rumour").message.id
            let poll = try await bob.createPoll(chat: chat, question: "Pizza?").message.id
            let doomed = try await bob.createPoll(chat: chat, question: "Sushi?").message.id
            try await bed.advance(by: .seconds(10))
            _ = try await carol.postVote(chat: chat, poll: poll, choices: ["up"])
            _ = try await alice.postVote(chat: chat, poll: poll, choices: ["down"])

            // When bob edits twice, alice deletes carol's rumour as the chat's creator, bob deletes a
            // poll of his, and members pin, unpin and reply, all at once
            _ = try await bob.edit(chat: chat, message: plan, text: "lunch at one")
            _ = try await bob.edit(chat: chat, message: plan, text: "lunch at two, @\(alice.me.shortHex)")
            _ = try await alice.deleteForEveryone(chat: chat, message: rumour)
            _ = try await bob.deleteForEveryone(chat: chat, message: doomed)
            _ = try await carol.pin(chat: chat, message: hello)
            _ = try await bob.pin(chat: chat, message: plan)
            _ = try await carol.sendText(
                chat: chat, "sounds good", references: [MessageReference(id: plan, tag: .text)])
            try await bed.advance(by: .seconds(2))
            _ = try await alice.pin(chat: chat, message: hello, pinned: false)

            // and mallory, bypassing the local checks, edits and deletes what is not hers, names two
            // targets, pins with bad bytes, deletes a vote, and amends a message nobody holds
            let send = { (tag: ParleyCore.Tag, content: [UInt8], references: [MessageReference]) in
                _ = try await mallory.send(chat: chat, tag: tag, content: content, references: references)
            }
            try await send(.edit, Array("pwned".utf8), [MessageReference(id: hello, tag: .edit)])
            try await send(.delete, [], [MessageReference(id: plan, tag: .delete)])
            try await send(
                .delete, [], [MessageReference(id: plan, tag: .delete), MessageReference(id: hello, tag: .delete)])
            try await send(.pin, [7], [MessageReference(id: plan, tag: .pin)])
            let vote = try alice.store.messages(matching: MessageCriteria(chat: chat, tag: .pollVoteDown))
            try await send(.delete, [], vote.map { MessageReference(id: $0.message.id, tag: .delete) })
            let ghost = try MessageID(rawRepresentation: [UInt8](repeating: 0xAB, count: 32))
            try await send(.edit, Array("boo".utf8), [MessageReference(id: ghost, tag: .edit)])
            try await bed.advance(by: .seconds(20))

            // Then all four hold the same messages
            let held = try peers.map { peer in
                Set(try peer.node.store.messages(matching: MessageCriteria(chat: chat)).map(\.message.id))
            }
            #expect(held.allSatisfy { $0 == held[0] }, "the members did not converge")
            // and derive the same history, amendments, pins and tally
            func derived(_ node: Node) throws -> [String] {
                var criteria = MessageCriteria(chat: chat, tags: ContentKind.shownTags, order: .history)
                criteria.withoutForked = true
                let history = try node.store.messages(matching: criteria)
                let amendments = try node.amendments(of: history, chat: chat)
                let lines = history.map { stored in
                    let found = amendments[stored.message.id] ?? .none
                    return "\(stored.message.id.shortHex) \(found.edits.map(\.id.shortHex)) "
                        + "\(found.deletion?.author.shortHex ?? "-") \(found.pin?.author.shortHex ?? "-") \(found.replyCount)"
                }
                let pins = try node.pins(chat: chat).map {
                    "\($0.message.message.id.shortHex) by \($0.pin.author.shortHex)"
                }
                let tally = try node.pollSnapshot(chat: chat, poll: poll).counts
                return lines + pins + ["\(tally)"]
            }
            let views = try peers.map { try derived($0.node) }
            #expect(views.allSatisfy { $0 == views[0] })

            // and what they derive is what the honest members did
            let amended = try alice.amendments(
                of: try [hello, plan, rumour, doomed].compactMap { try alice.store.message($0) }, chat: chat)
            #expect(amended[plan]?.edits.count == 2)
            let planMessage = try #require(try alice.store.message(plan)).message
            #expect(
                amended[plan].map { String(decoding: $0.currentContent(of: planMessage), as: UTF8.self) }
                    == "lunch at two, \(Mentions.token(for: alice.me))")
            #expect(amended[plan]?.deletion == nil && amended[plan]?.replyCount == 1)
            #expect(amended[hello]?.edits.isEmpty ?? true)
            #expect(amended[rumour]?.deletion?.author == alice.me)
            #expect(amended[doomed]?.deletion?.author == bob.me)
            for peer in peers {
                #expect(throws: NodeError.self) { try peer.node.pollSnapshot(chat: chat, poll: doomed) }
            }
            #expect(try alice.pins(chat: chat).map(\.message.message.id) == [plan])
            let tally = try #require(try alice.pollSnapshot(chat: chat, poll: poll).tally)
            #expect(tally.up == 1 && tally.down == 1)
            // and no node's search finds the deleted rumour any more, while the edited plan is found by its new text
            for peer in peers {
                #expect(try await peer.node.search(text: "rumour").isEmpty)
                #expect(try await peer.node.search(text: "lunch two").map(\.stored.message.id) == [plan])
                #expect(try await peer.node.search(text: "noon").isEmpty)
            }
            // and an honest node counted each refusal under its own reason
            let rejections = await carol.status().rejections
            #expect(rejections["editNotAuthor"] == 1)
            #expect(rejections["deleteNotAllowed"] == 1)
            // two targets named, a pin's bad byte, a vote deleted (the ghost's edit waits uncounted)
            #expect(rejections["amendmentNotApplicable"] == 3)
        }
        #expect(bed.network.counts.dropped > 0, "the network was supposed to lose datagrams")
    }

    @Test func aDeletionEmptiesWhatEveryNodesSearchHadIndexed() async throws {
        // Given alice and bob, and a message both have indexed for search
        let bed = try await PumpedPeers.make(count: 2)
        let (alice, bob) = (bed.peers[0].node, bed.peers[1].node)
        try await bed.running {
            let chat = try await alice.createChat(title: "Search", members: [bed.peers[1].identity.publicKey]).id
            try await bed.settle()
            let secret = try await alice.sendText(chat: chat, "the secret plan").message.id
            try await bed.settle()
            for node in [alice, bob] { #expect(try await node.search(text: "secret").count == 1) }
            // When alice deletes it for everyone
            _ = try await alice.deleteForEveryone(chat: chat, message: secret)
            try await bed.settle()
            // Then neither node's search finds it, and the message itself stays (its author's chain needs it)
            for node in [alice, bob] {
                #expect(try await node.search(text: "secret").isEmpty)
                #expect(try node.store.message(secret)?.message.tag == .text)
            }
        }
    }
}
