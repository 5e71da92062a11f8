import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Testing

/// What a member answers to a sync request: exactly the requester's gaps and tail.
struct SyncReplyTests {
    let alice: Node
    let bob: Identity
    let carol: Identity
    let invite: ChatInvite

    init() async throws {
        let network = InMemoryNetwork()
        let aliceIdentity = try Identity.generate()
        bob = try Identity.generate()
        carol = try Identity.generate()
        alice = Node(configuration: NodeConfiguration(identity: aliceIdentity), store: try MessageStore.inMemory(), transport: network.makeTransport())
        invite = try ChatInvite.create(by: aliceIdentity, title: "Sync", members: [bob.publicKey, carol.publicKey], createdAtMillis: 0)
        _ = try await alice.store.saveChat(invite, joinedAtMillis: 0)
    }

    func carolsMessages(_ sequences: [UInt64]) async throws {
        let messages = try sequences.map { sequence in
            try MessageDraft(
                chat: invite.id, author: carol.publicKey, sequence: sequence, lamport: sequence, timestampMillis: 0, tag: .text,
                content: Array("m\(sequence)".utf8)
            ).signed(by: carol)
        }
        _ = try await alice.store.insert(messages, receivedAtMillis: 0, ownAuthor: alice.me)
    }

    func sentSequences(_ reply: [Frame]) throws -> [UInt64] {
        try reply.compactMap { frame in
            if case let .message(bytes) = frame { try Message(decoding: bytes).sequence } else { nil }
        }
    }

    @Test func sendsTheRequestersGapsAndTailOnly() async throws {
        // Given alice holds carol's 1...6, and bob holds 1, 2 and 4
        try await carolsMessages([1, 2, 3, 4, 5, 6])
        let bobHolds = try AuthorHoldings(highest: 4, missing: [3...3])
        // When bob asks
        let reply = try alice.syncReply(chat: invite.id, vector: [carol.publicKey: bobHolds], to: bob.publicKey)
        // Then alice sends 3, 5 and 6, and says there is no more
        #expect(try sentSequences(reply) == [3, 5, 6])
        #expect(reply.last == .syncEnd(chat: invite.id, .done))
    }

    @Test func aGapNoOneCanFillCostsNothing() async throws {
        // Given carol skipped sequence 3: alice and bob both hold 1, 2, 4
        try await carolsMessages([1, 2, 4])
        let vector = try alice.store.versionVector(chat: invite.id)
        // When bob, holding the same, asks
        let reply = try alice.syncReply(chat: invite.id, vector: vector, to: bob.publicKey)
        // Then nothing is resent, and alice says she holds exactly what bob holds
        #expect(try sentSequences(reply).isEmpty)
        #expect(reply == [.syncEnd(chat: invite.id, .nothingMissing)])
    }

    @Test func anEmptyReplySaysNothingMissingOnlyWhenTheVectorsAreEqual() async throws {
        // Given alice holds carol's 1...2, and bob holds 1...5
        try await carolsMessages([1, 2])
        // When bob asks, alice has nothing for him, but she holds less: a plain "done"
        let reply = try alice.syncReply(chat: invite.id, vector: [carol.publicKey: .contiguous(5)], to: bob.publicKey)
        #expect(reply == [.syncEnd(chat: invite.id, .done)])
    }

    @Test func aFullBatchAsksForMoreAndANonMemberGetsNothing() async throws {
        let batch = UInt64(alice.configuration.syncBatch)
        try await carolsMessages(Array(1...(batch + 88)))
        let reply = try alice.syncReply(chat: invite.id, vector: [:], to: bob.publicKey)
        #expect(try sentSequences(reply) == Array(1...batch))
        #expect(reply.last == .syncEnd(chat: invite.id, .more))
        #expect(try alice.syncReply(chat: invite.id, vector: [:], to: try Identity.generate().publicKey).isEmpty)
    }
}
