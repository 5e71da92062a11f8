import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Testing

/// Property: on a lossy, duplicating, reordering network, four peers (one of them hostile) that
/// hold the same messages compute identical reaction groups (stepped by a `NetworkPump`).
struct ReactionConvergenceTests {
    typealias Peers = LossyNetworkConvergenceTests

    @Test(arguments: [5, 23] as [UInt64]) func fourPeersIncludingAHostileOneAgreeOnReactions(seed: UInt64) async throws
    {
        // Given four members on a network that drops 15%, duplicates 5% and reorders
        let bed = try await PumpedPeers.make(
            count: 4, conditions: .init(lossRate: 0.15, duplicateRate: 0.05, reorder: true), seed: seed)
        let peers = bed.peers
        let mallory = peers[3]
        try await bed.running {
            let chat = try await peers[0].node.createChat(
                title: "Reactions", members: peers.dropFirst().map(\.identity.publicKey))
            let target = try await peers[0].node.sendText(chat: chat.id, "ship it?").message.id
            try await bed.advance(by: .seconds(10)) // retransmits and sync repair what the network lost
            for (index, peer) in peers.enumerated() {
                #expect(
                    (try? peer.node.reactions(chat: chat.id, message: target)) != nil,
                    "peer \(index) never received the message")
            }
            // When the honest peers react, re-score, remove and replace at random
            var random = SplitMix64(seed: seed)
            let types = ["👍", "❤️", "🎉", "lgtm"]
            for round in 0..<3 {
                for peer in peers.prefix(3) {
                    let type = types[Int(random.next() % 4)]
                    switch (round, random.next() % 3) {
                    case (2, 0): _ = try? await peer.node.unreact(chat: chat.id, message: target, type: type)
                    case (_, 1):
                        _ = try? await peer.node.react(chat: chat.id, message: target, type: type, unique: true)
                    default:
                        _ = try? await peer.node.react(
                            chat: chat.id, message: target, type: type, score: Int(random.next() % 5))
                    }
                }
            }
            // and mallory, bypassing the local checks, floods types, out-of-range scores, bad bytes,
            // duplicates, and reactions to a message nobody holds
            let reference = [MessageReference(id: target, tag: .reaction)]
            for n in 0..<40 {
                _ = try await mallory.node.send(
                    chat: chat.id, tag: .reaction, content: ReactionContent.add(ReactionType("spam\(n)")).encoded(),
                    references: reference)
            }
            for bytes: [UInt8] in [
                [0x01, 0x00, 0x7F, 0xFF, 0xFF, 0xFF, 1, 0x78], [0x01, 0x03, 0, 0, 0, 0, 1, 0x78], [0x07], [],
            ] {
                _ = try await mallory.node.send(chat: chat.id, tag: .reaction, content: bytes, references: reference)
            }
            let ghost = try MessageID(rawRepresentation: [UInt8](repeating: 0xAB, count: 32))
            _ = try await mallory.node.send(
                chat: chat.id, tag: .reaction, content: ReactionContent.add(ReactionType("👻")).encoded(),
                references: [MessageReference(id: ghost, tag: .reaction)])
            for _ in 0..<3 {
                _ = try await mallory.node.send(
                    chat: chat.id, tag: .reaction, content: ReactionContent.add(ReactionType("👍")).encoded(),
                    references: reference)
            }

            // Then all four hold the same messages and compute the same groups and pages
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
            let summaries = try peers.map { try $0.node.reactions(chat: chat.id, message: target) }
            #expect(summaries.allSatisfy { $0 == summaries[0] })
            let viewer = peers[1].identity.publicKey
            for sort in ReactionSort.allCases {
                let groups = summaries.map { $0.groups(viewer: viewer, sortedBy: sort) }
                #expect(groups.allSatisfy { $0 == groups[0] })
            }
            // and mallory's flood counts at most 32 types, one 👍, and nothing malformed
            let hostile = summaries[0].reactions.filter { $0.author == mallory.identity.publicKey }
            #expect(hostile.count == ReactionRules.maxTypesPerAuthor)
            #expect(hostile.count { $0.type.rawValue == "👍" } == 1)
            #expect(!hostile.contains { $0.type.rawValue == "x" || $0.type.rawValue == "👻" })
            let listings = try peers.map {
                try $0.node.reactions(chat: chat.id, message: target, sort: .score, limit: 7).page
            }
            #expect(listings.allSatisfy { $0 == listings[0] })
        }
        #expect(bed.network.counts.dropped > 0, "the network was supposed to lose datagrams")
    }

    @Test func theNodeRefusesWhatWouldChangeNothing() async throws {
        // Given a node with a chat and a message
        let peers = try Peers.makePeers(InMemoryNetwork(), count: 2)
        let node = peers[0].node
        let chat = try await node.createChat(title: "Local", members: [peers[1].identity.publicKey])
        let target = try await node.sendText(chat: chat.id, "hello").message.id
        // When the user reacts, reacts again the same way, unreacts something never chosen, or goes out of range
        _ = try await node.react(chat: chat.id, message: target, type: " 👍 ")
        await #expect(throws: NodeError.self) { try await node.react(chat: chat.id, message: target, type: "👍") }
        await #expect(throws: NodeError.self) { try await node.unreact(chat: chat.id, message: target, type: "❤️") }
        await #expect(throws: NodeError.self) {
            try await node.react(chat: chat.id, message: target, type: "x", score: 1_000_001)
        }
        await #expect(throws: NodeError.self) {
            try await node.react(chat: chat.id, message: target, type: "bad\nword")
        }
        let unknown = try MessageID(rawRepresentation: [UInt8](repeating: 1, count: 32))
        await #expect(throws: NodeError.self) { try await node.react(chat: chat.id, message: unknown, type: "👍") }
        // Then a new score, a unique replacement and an unreact each take effect
        _ = try await node.react(chat: chat.id, message: target, type: "👍", score: 3)
        _ = try await node.react(chat: chat.id, message: target, type: "❤️")
        let reaction = try await node.react(chat: chat.id, message: target, type: "🎉", unique: true)
        await #expect(throws: NodeError.self) {
            try await node.react(chat: chat.id, message: reaction.message.id, type: "👍")
        }
        #expect(
            try node.reactions(chat: chat.id, message: target).groups(viewer: node.me).map(\.type.rawValue) == ["🎉"])
        _ = try await node.unreact(chat: chat.id, message: target, type: "🎉")
        #expect(try node.reactions(chat: chat.id, message: target).reactions.isEmpty)
    }

    @Test func aReactionThatArrivesBeforeItsMessageCountsOnceTheMessageArrives() async throws {
        // Given bob's node, and alice's message and carol's reactions to it made elsewhere
        let bob = try Peers.makePeers(InMemoryNetwork(), count: 1)[0]
        let alice = try Identity.generate(), carol = try Identity.generate()
        let invite = try ChatInvite.create(
            by: alice, title: "Late", members: [bob.identity.publicKey, carol.publicKey], createdAtMillis: 0)
        _ = try await bob.node.store.saveChat(invite, joinedAtMillis: 0)
        let target = try MessageDraft(
            chat: invite.id, author: alice.publicKey, sequence: 1, lamport: 1, timestampMillis: 0, tag: .text,
            content: Array("hi".utf8)
        ).signed(by: alice)
        let reactions = try [
            ReactionContent.add(ReactionType("👋"), unique: true), .removal(ReactionType("👋")), .add(ReactionType("🙂")),
        ]
        .enumerated().map { index, content in
            try MessageDraft(
                chat: invite.id, author: carol.publicKey, sequence: UInt64(index + 1), lamport: UInt64(index + 2),
                timestampMillis: 7,
                tag: .reaction, content: content.encoded(),
                references: [MessageReference(id: target.id, tag: .reaction)]
            ).signed(by: carol)
        }

        // When the reactions are stored first, newest first: they are kept, with nothing to count them for yet
        let stored = try await bob.node.store.insert(
            reactions.reversed(), receivedAtMillis: 0, ownAuthor: bob.identity.publicKey)
        #expect(stored.allSatisfy { $0.storedMessage != nil })
        #expect(throws: NodeError.self) { try bob.node.reactions(chat: invite.id, message: target.id) }

        // Then once the message arrives, the latest event per type counts
        _ = try await bob.node.store.insert([target], receivedAtMillis: 0, ownAuthor: bob.identity.publicKey)
        let groups = try bob.node.reactions(chat: invite.id, message: target.id).groups(viewer: bob.identity.publicKey)
        #expect(groups.map { "\($0.type) \($0.count) \($0.firstAtMillis)" } == ["🙂 1 7"])
    }
}
