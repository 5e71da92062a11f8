import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Synchronization
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
        alice = Node(
            configuration: NodeConfiguration(identity: aliceIdentity), store: try MessageStore.inMemory(),
            transport: network.makeTransport())
        invite = try ChatInvite.create(
            by: aliceIdentity, title: "Sync", members: [bob.publicKey, carol.publicKey], createdAtMillis: 0)
        _ = try await alice.store.saveChat(invite, joinedAtMillis: 0)
    }

    func carolsMessages(_ sequences: [UInt64]) async throws {
        let messages = try sequences.map { sequence in
            try MessageDraft(
                chat: invite.id, author: carol.publicKey, sequence: sequence, lamport: sequence, timestampMillis: 0,
                tag: .text,
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

    @Test func othersMessagesSentInAReplyAreRememberedAsRelayedAndOwnOnesAreNot() async throws {
        // Given alice holds carol's 1...3 and one of her own
        try await carolsMessages([1, 2, 3])
        let own = try MessageDraft(
            chat: invite.id, author: alice.me, sequence: 1, lamport: 4, timestampMillis: 0, tag: .text,
            content: Array("mine".utf8)
        ).signed(by: alice.identity)
        _ = try await alice.store.insert([own], receivedAtMillis: 0, ownAuthor: alice.me)
        // When bob, holding nothing, asks
        let reply = try alice.syncReply(chat: invite.id, vector: [:], to: bob.publicKey)
        // Then all four go, and only carol's are taken as relayed (their acks need no store lookup)
        let sent = try reply.compactMap { frame in
            if case let .message(bytes) = frame { try Message(decoding: bytes) } else { nil }
        }
        #expect(sent.count == 4)
        let relayed = alice.relayed.withLock { relayed in sent.filter { relayed.contains($0.id) } }
        #expect(Set(relayed.map(\.author)) == [carol.publicKey])
        #expect(relayed.count == 3)
    }

    @Test func anOwnMessagesAckIsRecordedAndReportedBesideAnAckForARelayedOne() async throws {
        // Given alice, with a didSend hook, holding carol's message and one of her own sent to bob and carol
        let log = OutcomeLog()
        var configuration = NodeConfiguration(identity: alice.identity)
        configuration.sendHooks = SendHooks(didSend: { log.append($0) })
        let hooked = Node(
            configuration: configuration, store: alice.store, transport: InMemoryNetwork().makeTransport())
        try await carolsMessages([1])
        let own = try MessageDraft(
            chat: invite.id, author: alice.me, sequence: 1, lamport: 2, timestampMillis: 0, tag: .text,
            content: Array("mine".utf8)
        ).signed(by: alice.identity)
        _ = try await alice.store.insert([own], receivedAtMillis: 0, ownAuthor: alice.me, ownSent: true)
        // And carol's message went to bob in a sync reply
        let reply = try hooked.syncReply(chat: invite.id, vector: [carol.publicKey: .contiguous(0)], to: bob.publicKey)
        let carols = try #require(
            reply.compactMap { frame in
                if case let .message(bytes) = frame { try Message(decoding: bytes) } else { nil }
            }.first)

        // When bob's acks for both arrive in one frame
        try await hooked.recordAcks([(carols.id, bob.publicKey), (own.id, bob.publicKey)])

        // Then her own message's delivery is recorded and reported, once (the relayed one's ack is
        // dropped before the store, which would ignore it anyway)
        #expect(log.all == [.delivered(own.id, to: 1, of: 2)])
        #expect(try alice.store.receipts(message: own.id)?.filter(\.delivered).map(\.member) == [bob.publicKey])
    }

    @Test func aRunCutShortOnAChainedMessageIsExtendedToTheHeadThatVouchesForIt() async throws {
        // Given carol's chain 1...3 stored without signatures and her head 4 (one batch), then her head 5
        var previous: MessageID?
        var chain: [Message] = []
        for sequence in UInt64(1)...5 {
            let draft = MessageDraft(
                chat: invite.id, author: carol.publicKey, sequence: sequence, previous: previous, lamport: sequence,
                timestampMillis: 0,
                tag: .text, content: Array("m\(sequence)".utf8))
            let message = sequence >= 4 ? try draft.signed(by: carol) : try draft.chained()
            chain.append(message)
            previous = message.id
        }
        _ = try await alice.store.insert(chain, receivedAtMillis: 0, ownAuthor: alice.me)
        // And alice answering at most 2 messages per reply
        var configuration = NodeConfiguration(identity: alice.identity)
        configuration.syncBatch = 2
        let paged = Node(configuration: configuration, store: alice.store, transport: InMemoryNetwork().makeTransport())

        // When bob, holding nothing, asks
        let reply = try paged.syncReply(chat: invite.id, vector: [:], to: bob.publicKey)

        // Then the page of 2 ends on a chained message, so it runs on to head 4, and says there is more
        #expect(try sentSequences(reply) == [1, 2, 3, 4])
        #expect(reply.last == .syncEnd(chat: invite.id, .more))
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

    /// A node of alice's on a clock the test moves, holding the chat.
    func nodeOnManualClock(_ clock: ManualClock, syncBatch: Int? = nil) async throws -> Node {
        var configuration = alice.configuration
        if let syncBatch { configuration.syncBatch = syncBatch }
        let node = Node(
            configuration: configuration, store: try MessageStore.inMemory(),
            transport: InMemoryNetwork().makeTransport(), clock: clock)
        _ = try await node.store.saveChat(invite, joinedAtMillis: 0)
        return node
    }

    func store(_ sequences: ClosedRange<UInt64>, by author: Identity, in node: Node, atMillis millis: Int64)
        async throws
    {
        let messages = try sequences.map { sequence in
            try MessageDraft(
                chat: invite.id, author: author.publicKey, sequence: sequence, lamport: sequence, timestampMillis: 0,
                tag: .text,
                content: Array("m\(sequence)".utf8)
            ).signed(by: author)
        }
        _ = try await node.store.insert(messages, receivedAtMillis: millis, ownAuthor: node.me)
    }

    func sent(_ reply: [Frame], by author: Identity) throws -> [UInt64] {
        try reply.compactMap { frame in
            guard case let .message(bytes) = frame else { return nil }
            let message = try Message(decoding: bytes)
            return message.author == author.publicKey ? message.sequence : nil
        }
    }

    @Test func aFreshTailOfAPushingAuthorIsLeftToItForAMemberThatAskedBeforeButNotOnItsFirstRequest() async throws {
        // Given alice's node holds her own messages 1...2 from long ago and 3...4 stored just now, and
        // carol's 1...2 stored just now (carol is not connected: nobody is pushing hers)
        let clock = ManualClock()
        let node = try await nodeOnManualClock(clock)
        let own = alice.configuration.identity
        try await store(1...2, by: own, in: node, atMillis: 0)
        try await store(3...4, by: own, in: node, atMillis: clock.wallMillis)
        try await store(1...2, by: carol, in: node, atMillis: clock.wallMillis)

        // When bob asks for the first time in this session, he gets everything he lacks
        let first = try node.syncReply(chat: invite.id, vector: [:], to: bob.publicKey)
        #expect(try sent(first, by: own) == [1, 2, 3, 4])
        #expect(try sent(first, by: carol) == [1, 2])
        // When he asks again, holding alice's 1, her fresh 3 and 4 are left to her own push; carol's still go
        let again = try node.syncReply(chat: invite.id, vector: [own.publicKey: .contiguous(1)], to: bob.publicKey)
        #expect(try sent(again, by: own) == [2])
        #expect(try sent(again, by: carol) == [1, 2])
        #expect(again.last == .syncEnd(chat: invite.id, .done))
        // When carol shows online, her fresh messages are left to her as well
        node.presenceHub.track([carol.publicKey])
        node.presenceHub.record(
            .make(identity: carol, wallMillis: clock.wallMillis, status: .online, interval: .seconds(5)), now: clock.now
        )
        let online = try node.syncReply(chat: invite.id, vector: [own.publicKey: .contiguous(2)], to: bob.publicKey)
        #expect(try sent(online, by: carol).isEmpty)
        // And once they are no longer fresh, they go too
        clock.advance(by: alice.configuration.syncFreshness)
        let later = try node.syncReply(
            chat: invite.id, vector: [own.publicKey: .contiguous(2), carol.publicKey: .contiguous(2)], to: bob.publicKey
        )
        #expect(try sent(later, by: own) == [3, 4])
    }

    @Test func aPageTheBatchCutShortKeepsItsFreshEndAndAsksForMore() async throws {
        // Given alice's own 1...5, all stored just now, and replies of 3 messages
        let clock = ManualClock()
        let node = try await nodeOnManualClock(clock, syncBatch: 3)
        let own = alice.configuration.identity
        try await store(1...5, by: own, in: node, atMillis: clock.wallMillis)
        _ = try node.syncReply(chat: invite.id, vector: [:], to: bob.publicKey)

        // When bob, who asked before, asks from the start: the page ends before her last messages
        let reply = try node.syncReply(chat: invite.id, vector: [:], to: bob.publicKey)
        // Then it goes whole, fresh or not, and says there is more
        #expect(try sent(reply, by: own) == [1, 2, 3])
        #expect(reply.last == .syncEnd(chat: invite.id, .more))
    }

    @Test func underLoadTheFreshTailIsFourTimesHowLongTheNodesOwnInputWaits() async throws {
        // Given a node whose input has waited 2 s unhandled (its queue delay), holding its own 1...2
        // stored 9 s ago and 3...4 stored 5 s ago
        let clock = ManualClock()
        let inbox = DatagramInbox(now: { clock.now })
        let node = Node(
            configuration: alice.configuration, store: try MessageStore.inMemory(),
            transport: StalledTransport(inbound: inbox), clock: clock)
        _ = try await node.store.saveChat(invite, joinedAtMillis: 0)
        let own = alice.configuration.identity
        try await store(1...2, by: own, in: node, atMillis: clock.wallMillis)
        clock.advance(by: .seconds(4))
        try await store(3...4, by: own, in: node, atMillis: clock.wallMillis)
        clock.advance(by: .seconds(3))
        inbox.deliver([Datagram(address: PeerAddress(host: "127.0.0.1", port: 9), bytes: [0])])
        clock.advance(by: .seconds(2))
        #expect(inbox.queueDelay == .seconds(2))
        _ = try node.syncReply(chat: invite.id, vector: [:], to: bob.publicKey)

        // When bob asks again: 3 and 4 are 5 s old, fresh within 4 × 2 s; 1 and 2 are not
        let reply = try node.syncReply(chat: invite.id, vector: [:], to: bob.publicKey)
        #expect(try sent(reply, by: own) == [1, 2])
    }
}

/// A transport that sends nothing and whose input nobody takes: its inbox's queue delay only grows.
private struct StalledTransport: DatagramTransport {
    let localAddress = PeerAddress(host: "10.99.0.9", port: 1)
    let discoveryTarget: PeerAddress? = nil
    let inbound: DatagramInbox

    func send(_ batch: [Datagram]) async {}
    func close() async { inbound.finish() }
}
