import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Testing

/// Presence and typing between in-process nodes on one manual clock: every expiry happens because
/// the test moved the clock, never because real time passed.
@Suite(.timeLimit(.minutes(2)))
struct PresenceNodeTests {
    typealias Peers = LossyNetworkConvergenceTests
    typealias Peer = LossyNetworkConvergenceTests.Peer

    /// Nodes with the default presence timings on `clock`, all contacts of each other.
    static func makePeers(_ network: InMemoryNetwork, _ clock: ManualClock, count: Int) async throws -> [Peer] {
        let peers = try (0..<count).map { _ in
            let identity = try Identity.generate()
            let node = Node(
                configuration: NodeConfiguration(identity: identity), store: try MessageStore.inMemory(),
                transport: network.makeTransport(), clock: clock)
            return Peer(identity: identity, node: node)
        }
        try await Peers.introduce(peers)
        return peers
    }

    /// Moves the clock in timer ticks, letting the nodes run between them, until `condition` holds;
    /// returns how much manual time that took, or nil if it did not hold within `limit`.
    static func advance(_ clock: ManualClock, upTo limit: Duration, until condition: () async throws -> Bool) async throws -> Duration? {
        var moved = Duration.zero
        while true {
            if try await condition() { return moved }
            guard moved < limit else { return nil }
            clock.advance(by: .milliseconds(50))
            moved += .milliseconds(50)
            try await Task.sleep(for: .milliseconds(3))
        }
    }

    /// Lets the timer loops run `count` ticks.
    static func ticks(_ clock: ManualClock, _ count: Int) async throws {
        for _ in 0..<count {
            clock.advance(by: .milliseconds(50))
            try await Task.sleep(for: .milliseconds(3))
        }
    }

    static func isOnline(_ observer: Peer, _ peer: Peer, in chat: ChatID) throws -> Bool {
        try observer.node.members(chat: chat).first { $0.peer == peer.identity.publicKey }?.status == .online
    }

    /// A chat of all `peers`, created by the first, once every member shows every other online.
    static func chatWithEveryoneOnline(_ peers: [Peer], _ clock: ManualClock) async throws -> ChatID {
        let invite = try await peers[0].node.createChat(title: "Here", members: peers.dropFirst().map(\.identity.publicKey))
        let allOnline = try await advance(clock, upTo: .seconds(30)) {
            try peers.allSatisfy { observer in try peers.allSatisfy { try isOnline(observer, $0, in: invite.id) } }
        }
        try #require(allOnline != nil, "not everyone came online")
        return invite.id
    }

    @Test func aMembersTypingReachesTheOtherMembersAndExpiresWhenTheClockPassesTheTimeout() async throws {
        let network = InMemoryNetwork(), clock = ManualClock()
        let peers = try await Self.makePeers(network, clock, count: 3)
        let (alice, bob, carol) = (peers[0], peers[1], peers[2])
        try await Peers.running(peers) {
            let chat = try await Self.chatWithEveryoneOnline(peers, clock)
            var updates = alice.node.typingUpdates(chat: chat).makeAsyncIterator()
            #expect(await updates.next() == [])

            // When bob starts typing
            #expect(try await bob.node.setTyping(chat: chat, active: true) == 2)

            // Then alice's stream reports him, and carol sees him too, with the clock standing still
            #expect(await updates.next() == [bob.identity.publicKey])
            let carolSees = try await Peers.eventually(within: 10) { carol.node.typing(in: chat) == [bob.identity.publicKey] }
            #expect(carolSees)
            #expect(bob.node.typing(in: chat).isEmpty) // one's own typing is not shown back

            // When 5.9 s pass, he still types; at 6 s without a refresh, the indicator is gone everywhere
            clock.advance(by: .milliseconds(5_900))
            #expect(alice.node.typing(in: chat) == [bob.identity.publicKey])
            clock.advance(by: .milliseconds(100))
            #expect(alice.node.typing(in: chat).isEmpty)
            #expect(carol.node.typing(in: chat).isEmpty)
            // and alice's stream reports the change from the timer loop's expiry check, on its next ticks
            try await Self.ticks(clock, 10)
            #expect(await updates.next() == [])
        }
    }

    @Test func stoppingTypingClearsTheIndicatorAtOnce() async throws {
        let network = InMemoryNetwork(), clock = ManualClock()
        let peers = try await Self.makePeers(network, clock, count: 2)
        let (alice, bob) = (peers[0], peers[1])
        try await Peers.running(peers) {
            let chat = try await Self.chatWithEveryoneOnline(peers, clock)
            var updates = alice.node.typingUpdates(chat: chat).makeAsyncIterator()
            #expect(await updates.next() == [])
            try await bob.node.setTyping(chat: chat, active: true)
            #expect(await updates.next() == [bob.identity.publicKey])
            try await bob.node.setTyping(chat: chat, active: false)
            #expect(await updates.next() == [])
        }
    }

    @Test func aNonMembersTypingIsIgnoredAndCounted() async throws {
        // Given alice and bob's chat, and mallory, a contact of alice's with a session but not in it
        let network = InMemoryNetwork(), clock = ManualClock()
        let peers = try await Self.makePeers(network, clock, count: 3)
        let (alice, bob, mallory) = (peers[0], peers[1], peers[2])
        try await Peers.running(peers) {
            let chat = try await Self.chatWithEveryoneOnline([alice, bob], clock)
            await #expect(throws: NodeError.self) { try await mallory.node.setTyping(chat: chat, active: true) }

            // When mallory sends a typing frame for that chat straight to alice
            await mallory.node.transmit([.typing(chat: chat, active: true)], to: alice.identity.publicKey)

            // Then alice counts it as notMember and shows nobody typing
            let counted = try await Peers.eventually(within: 10) { await alice.node.status().rejections["notMember", default: 0] >= 1 }
            #expect(counted)
            #expect(alice.node.typing(in: chat).isEmpty)
        }
    }

    @Test func aRelayedOrStrangersBeatIsRejectedAndShowsNobodyOnline() async throws {
        // Given alice and bob's chat, and mallory who holds a beat bob signed
        let network = InMemoryNetwork(), clock = ManualClock()
        let peers = try await Self.makePeers(network, clock, count: 3)
        let (alice, bob, mallory) = (peers[0], peers[1], peers[2])
        try await Peers.running(peers) {
            let chat = try await Self.chatWithEveryoneOnline([alice, bob], clock)
            let bobsBeat = PresenceBeat.make(identity: bob.identity, wallMillis: clock.wallMillis, status: .leaving)

            // When mallory sends alice her own beat, then relays bob's on her own session, in one packet
            let own = PresenceBeat.make(identity: mallory.identity, wallMillis: clock.wallMillis, status: .online)
            await mallory.node.transmit([.presence(own), .presence(bobsBeat)], to: alice.identity.publicKey)

            // Then the relayed beat is a bad signature, mallory's is ignored (she shares no chat), and bob stays online
            let counted = try await Peers.eventually(within: 10) { await alice.node.status().rejections["badSignature", default: 0] >= 1 }
            #expect(counted)
            #expect(try Self.isOnline(alice, bob, in: chat))
            #expect(alice.node.presence(of: mallory.identity.publicKey) == .offline(lastSeenWallMillis: nil))
        }
    }

    @Test func aStoppedNodeGoesOfflineOnlyAfterThePresenceTimeout() async throws {
        let network = InMemoryNetwork(), clock = ManualClock()
        let peers = try await Self.makePeers(network, clock, count: 3)
        let (alice, bob, carol) = (peers[0], peers[1], peers[2])
        try await Peers.running([alice, carol]) {
            let chat = try await withThrowingTaskGroup(of: Void.self) { bobRunning in
                bobRunning.addTask { try await bob.node.run() }
                let chat = try await Self.chatWithEveryoneOnline(peers, clock)
                // When bob's node stops dead (no goodbye)
                bobRunning.cancelAll()
                try? await bobRunning.waitForAll()
                return chat
            }

            // Then alice still shows him online while no time passes, and offline once at most 12 s
            // have passed on the clock without a beat
            #expect(try Self.isOnline(alice, bob, in: chat))
            let took = try await Self.advance(clock, upTo: .seconds(20)) { try !Self.isOnline(alice, bob, in: chat) }
            let elapsed = try #require(took, "bob never went offline")
            #expect(elapsed > .zero && elapsed <= .seconds(12), "offline after \(elapsed)")
            guard case let .offline(lastSeen?) = try alice.node.members(chat: chat).first(where: { $0.peer == bob.identity.publicKey })?.status else {
                Issue.record("bob has no last-seen time")
                return
            }
            #expect(lastSeen <= clock.wallMillis - elapsed.components.seconds * 1_000)
            // carol is still online, and alice always is to herself
            #expect(try Self.isOnline(alice, carol, in: chat) && Self.isOnline(alice, alice, in: chat))
        }
    }

    @Test func aGracefulShutdownShowsTheNodeOfflineAtOnce() async throws {
        let network = InMemoryNetwork(), clock = ManualClock()
        let peers = try await Self.makePeers(network, clock, count: 2)
        let (alice, bob) = (peers[0], peers[1])
        try await Peers.running(peers) {
            let chat = try await Self.chatWithEveryoneOnline(peers, clock)

            // When bob shuts down, with the clock standing still
            await bob.node.shutdown()

            // Then alice shows him offline without any time passing
            let offline = try await Peers.eventually(within: 10) { try !Self.isOnline(alice, bob, in: chat) }
            #expect(offline)
        }
    }
}
