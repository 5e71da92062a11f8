import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Testing

/// The send path's guards against hostile clocks, refused input and racing callers.
struct SendGuardTests {
    let alice: Node
    let bob: Identity
    let invite: ChatInvite

    init() async throws {
        let identity = try Identity.generate()
        bob = try Identity.generate()
        alice = Node(
            configuration: NodeConfiguration(identity: identity), store: try MessageStore.inMemory(),
            transport: InMemoryNetwork().makeTransport())
        invite = try await alice.createChat(title: "Guards", members: [bob.publicKey])
    }

    @Test func aMemberPostingTheLargestLamportClockCannotStopOthersSending() async throws {
        // Given bob's message with Lamport 2^63 − 1
        let poison = try MessageDraft(
            chat: invite.id, author: bob.publicKey, sequence: 1, lamport: UInt64(Int64.max), timestampMillis: 0,
            tag: .text, content: []
        ).sealedAndSigned(in: invite, by: bob)
        _ = try await alice.store.insert([poison], receivedAtMillis: 0, ownAuthor: alice.me)
        // When alice sends twice
        let first = try await alice.sendText(chat: invite.id, "still here")
        let second = try await alice.sendText(chat: invite.id, "and again")
        // Then both are stored in sequence order, their clocks rising one by one: the poison, far above
        // every other clock, is not taken in (PROTOCOL §11)
        #expect(second.message.lamport == first.message.lamport + 1 && first.message.lamport < ChatClock.maxStep)
        #expect((first.message.sequence, second.message.sequence) == (1, 2))
    }

    @Test func aRefusedSendLeavesNoSequenceGap() async throws {
        await #expect(throws: CoreError.self) {
            try await alice.send(
                chat: invite.id, tag: .text, content: [UInt8](repeating: 0x61, count: Message.maxContentBytes + 1))
        }
        let next = try await alice.sendText(chat: invite.id, "fits")
        #expect(next.message.sequence == 1)
    }

    @Test func twoConcurrentVotesOnOnePollCannotBothPass() async throws {
        let poll = try await alice.createPoll(chat: invite.id, question: "Tea?")
        // When two votes race
        async let up = Result(catching: {
            try await alice.postVote(chat: invite.id, poll: poll.message.id, choices: ["up"])
        })
        async let down = Result(catching: {
            try await alice.postVote(chat: invite.id, poll: poll.message.id, choices: ["down"])
        })
        let results = await [up, down]
        // Then exactly one is sent, and the guard names it
        let sent = results.compactMap { try? $0.get() }
        #expect(sent.count == 1)
        let votes = try alice.store.messages(matching: MessageCriteria(chat: invite.id, referencing: poll.message.id))
        #expect(votes.count == 1)
        #expect(
            try alice.store.localData(message: poll.message.id, key: LocalDataKey.pollVote)
                == VoteChoice(tag: votes[0].message.tag)?.rawValue)
    }

    @Test func aReplayedAnnounceIsRejected() async throws {
        // Given bob's signed announce, accepted once from its real address
        let engine = NodeEngine(identity: try Identity.generate(), maxWaiting: 10)
        let announce = Announcement.make(identity: bob, wallMillis: 1_000).encoded()
        _ = await engine.open(
            [Datagram(address: PeerAddress(host: "10.0.0.2", port: 7001), bytes: announce)], now: .zero,
            wallMillis: 1_000)
        // When the same bytes arrive again from another address
        _ = await engine.open(
            [Datagram(address: PeerAddress(host: "10.0.0.66", port: 9), bytes: announce)], now: .zero, wallMillis: 1_500
        )
        // Then they are counted as replayed and bob's address is unchanged
        #expect(await engine.rejections[.replayed] == 1)
        #expect(await engine.address(of: bob.publicKey) == PeerAddress(host: "10.0.0.2", port: 7001))
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

extension SendGuardTests {
    @Test func concurrentSendsGetConsecutiveSequencesAndEachReturnsItsOwnMessage() async throws {
        // When 100 sends race
        let sent = try await withThrowingTaskGroup(of: (String, StoredMessage).self) { group in
            for index in 0..<100 {
                group.addTask { ("m\(index)", try await alice.sendText(chat: invite.id, "m\(index)")) }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        // Then each got its own message, stored and sent, with sequences 1…100 and no gap
        #expect(sent.allSatisfy { text, stored in String(decoding: stored.message.content, as: UTF8.self) == text })
        #expect(sent.values.allSatisfy { $0.state == .sent })
        #expect(Set(sent.values.map(\.message.sequence)) == Set(1...100))
        let holdings = try alice.store.versionVector(chat: invite.id)[alice.me]
        #expect(holdings?.highest == 100 && holdings?.missing.isEmpty == true)
    }
}
