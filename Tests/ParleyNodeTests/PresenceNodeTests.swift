import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Testing

/// Presence and typing between in-process nodes on one manual clock, stepped by a `NetworkPump`:
/// every expiry happens because the test moved the clock, never because real time passed.
@Suite(.timeLimit(.minutes(3)))
struct PresenceNodeTests {
    typealias Peers = LossyNetworkConvergenceTests
    typealias Peer = LossyNetworkConvergenceTests.Peer

    /// Moves the clock a pump step (50 ms) at a time, settling after each, until `condition` holds;
    /// returns how much manual time that took, or nil if it did not hold within `limit`.
    static func advance(_ pump: NetworkPump, upTo limit: Duration, until condition: () async throws -> Bool)
        async throws -> Duration?
    {
        var moved = Duration.zero
        while true {
            if try await condition() { return moved }
            guard moved < limit else { return nil }
            try await pump.advance(by: .milliseconds(50))
            moved += .milliseconds(50)
        }
    }

    static func isOnline(_ observer: Peer, _ peer: Peer, in chat: ChatID) throws -> Bool {
        try observer.node.members(chat: chat).first { $0.peer == peer.identity.publicKey }?.status == .online
    }

    /// A chat of `members` (all of the bed's peers unless given), created by the first; by the next
    /// heartbeat (every 5 s) every member shows every other online.
    static func chatWithEveryoneOnline(_ bed: PumpedPeers, _ members: [Peer]? = nil) async throws -> ChatID {
        let members = members ?? bed.peers
        let invite = try await members[0].node.createChat(
            title: "Here", members: members.dropFirst().map(\.identity.publicKey))
        try await bed.settle()
        try await bed.advance(by: .seconds(5))
        for observer in members {
            for peer in members {
                try #require(try isOnline(observer, peer, in: invite.id), "not everyone came online")
            }
        }
        return invite.id
    }

    @Test func aMembersTypingReachesTheOtherMembersAndExpiresWhenTheClockPassesTheTimeout() async throws {
        let bed = try await PumpedPeers.make(count: 3)
        let (alice, bob, carol) = (bed.peers[0], bed.peers[1], bed.peers[2])
        try await bed.running {
            let chat = try await Self.chatWithEveryoneOnline(bed)
            var updates = alice.node.typingUpdates(chat: chat).makeAsyncIterator()
            #expect(await updates.next() == [])

            // When bob starts typing
            #expect(try await bob.node.setTyping(chat: chat, active: true) == 2)
            try await bed.settle()

            // Then alice's stream reports him, and carol sees him too, with the clock standing still
            #expect(await updates.next() == [bob.identity.publicKey])
            #expect(carol.node.typing(in: chat) == [bob.identity.publicKey])
            #expect(bob.node.typing(in: chat).isEmpty) // one's own typing is not shown back

            // When 5.9 s pass, he still types; at 6 s without a refresh, the indicator is gone everywhere
            try await bed.advance(by: .milliseconds(5_900))
            #expect(alice.node.typing(in: chat) == [bob.identity.publicKey])
            #expect(carol.node.typing(in: chat) == [bob.identity.publicKey])
            try await bed.advance(by: .milliseconds(100))
            #expect(alice.node.typing(in: chat).isEmpty)
            #expect(carol.node.typing(in: chat).isEmpty)
            // and alice's stream reports the change, from the timer loop's expiry check on that tick
            #expect(await updates.next() == [])
        }
    }

    @Test func stoppingTypingClearsTheIndicatorAtOnce() async throws {
        let bed = try await PumpedPeers.make(count: 2)
        let (alice, bob) = (bed.peers[0], bed.peers[1])
        try await bed.running {
            let chat = try await Self.chatWithEveryoneOnline(bed)
            var updates = alice.node.typingUpdates(chat: chat).makeAsyncIterator()
            #expect(await updates.next() == [])
            try await bob.node.setTyping(chat: chat, active: true)
            try await bed.settle()
            #expect(await updates.next() == [bob.identity.publicKey])
            try await bob.node.setTyping(chat: chat, active: false)
            try await bed.settle()
            #expect(await updates.next() == [])
            #expect(alice.node.typing(in: chat).isEmpty)
        }
    }

    @Test func aNonMembersTypingIsIgnoredAndCounted() async throws {
        // Given alice and bob's chat, and mallory, a contact of alice's with a session but not in it
        let bed = try await PumpedPeers.make(count: 3)
        let (alice, bob, mallory) = (bed.peers[0], bed.peers[1], bed.peers[2])
        try await bed.running {
            let chat = try await Self.chatWithEveryoneOnline(bed, [alice, bob])
            await #expect(throws: NodeError.self) { try await mallory.node.setTyping(chat: chat, active: true) }
            let before = await alice.node.status().rejections["notMember", default: 0]

            // When mallory sends a typing frame for that chat straight to alice
            await mallory.node.transmit([.typing(chat: chat, active: true)], to: alice.identity.publicKey)
            try await bed.settle()

            // Then alice counts it as notMember and shows nobody typing
            #expect(await alice.node.status().rejections["notMember", default: 0] == before + 1)
            #expect(alice.node.typing(in: chat).isEmpty)
        }
    }

    @Test func aRelayedBeatMustCarryItsPeersSignatureSinceItsRelayerDidNotCheckIt() async throws {
        // Given a chat of alice, carol and dave, whom alice has no session with (his node is not running)
        let bed = try await PumpedPeers.make(count: 2)
        let (alice, carol) = (bed.peers[0], bed.peers[1])
        let dave = try Identity.generate()
        try await bed.running {
            let invite = try await carol.node.createChat(
                title: "Relay", members: [alice.identity.publicKey, dave.publicKey])
            try await bed.settle()
            let before = await alice.node.status().rejections["badSignature", default: 0]

            // When carol relays a beat of dave's whose signature is not his (a relayer forwards the bytes it
            // got on dave's session without checking them), then a genuine one
            let genuine = PresenceBeat.make(
                identity: dave, wallMillis: bed.clock.wallMillis, status: .online, interval: .seconds(5))
            let altered = PresenceBeat(
                peer: genuine.peer, wallMillis: genuine.wallMillis + 1, status: .online, intervalMillis: 5_000,
                signature: genuine.signature)
            await carol.node.transmit([.presence(altered)], to: alice.identity.publicKey)
            try await bed.settle()

            // Then alice counts the altered one as badSignature and shows dave offline; the genuine one
            // shows him online through carol
            #expect(await alice.node.status().rejections["badSignature", default: 0] == before + 1)
            let offline = try alice.node.members(chat: invite.id).first { $0.peer == dave.publicKey }
            #expect(offline?.status != .online)
            await carol.node.transmit([.presence(genuine)], to: alice.identity.publicKey)
            try await bed.settle()
            let online = try alice.node.members(chat: invite.id).first { $0.peer == dave.publicKey }
            #expect(online?.status == .online && online?.via == carol.identity.publicKey)
        }
    }

    @Test func aBeatRelayedByAStrangerOrForAPeerWithASessionIsIgnoredAndAStrangersOwnShowsNobodyOnline() async throws {
        // Given alice and bob's chat, and mallory who holds a beat bob signed
        let bed = try await PumpedPeers.make(count: 3)
        let (alice, bob, mallory) = (bed.peers[0], bed.peers[1], bed.peers[2])
        try await bed.running {
            let chat = try await Self.chatWithEveryoneOnline(bed, [alice, bob])
            let bobsBeat = PresenceBeat.make(
                identity: bob.identity, wallMillis: bed.clock.wallMillis, status: .leaving, interval: .seconds(5))
            let before = await alice.node.status().rejections["badSignature", default: 0]

            // When mallory sends alice her own beat, then relays bob's on her own session, in one packet
            let own = PresenceBeat.make(
                identity: mallory.identity, wallMillis: bed.clock.wallMillis, status: .online, interval: .seconds(5))
            await mallory.node.transmit([.presence(own), .presence(bobsBeat)], to: alice.identity.publicKey)
            try await bed.settle()

            // Then both are ignored without a counter: the relayed one because alice has a session with bob
            // (which brings his own beats) and mallory shares no chat with them (PROTOCOL §12a); mallory's
            // because she shares no chat with alice. Bob's "leaving" did not take: he stays online
            #expect(await alice.node.status().rejections["badSignature", default: 0] == before)
            #expect(try Self.isOnline(alice, bob, in: chat))
            #expect(alice.node.presence(of: mallory.identity.publicKey) == .offline(lastSeenWallMillis: nil))
        }
    }

    @Test func aBeatFromAMemberOfAChatJustJoinedIsKeptBeforeTheNextHeartbeat() async throws {
        let bed = try await PumpedPeers.make(count: 3)
        let (alice, bob, mallory) = (bed.peers[0], bed.peers[1], bed.peers[2])
        try await bed.running {
            let chat = try await Self.chatWithEveryoneOnline(bed, [alice, bob])
            // Given alice's tracked set as her last heartbeat left it before the chat existed
            alice.node.presenceHub.track([])
            let now = bed.clock.wallMillis + 1
            // When bob's beat, then mallory's (she shares no chat with alice), come in
            try await alice.node.receivePresence(
                PresenceBeat.make(identity: bob.identity, wallMillis: now, status: .online, interval: .seconds(5)),
                from: bob.identity.publicKey)
            try await alice.node.receivePresence(
                PresenceBeat.make(identity: mallory.identity, wallMillis: now, status: .online, interval: .seconds(5)),
                from: mallory.identity.publicKey)
            // Then bob shows online at once, and mallory is still unknown
            #expect(try Self.isOnline(alice, bob, in: chat))
            #expect(alice.node.presence(of: mallory.identity.publicKey) == .offline(lastSeenWallMillis: nil))
        }
    }

    /// The README tour's members screen: alice creates the chat, and the sessions come up before bob
    /// has joined it, so his start-up beat went to nobody and his next is up to an interval away.
    @Test func aMemberWhoseVoteJustArrivedIsOnlineBeforeHisFirstBeatOnEveryNode() async throws {
        let bed = try await PumpedPeers.make(count: 3)
        let (alice, bob, carol) = (bed.peers[0], bed.peers[1], bed.peers[2])
        try await bed.running {
            // Given a chat alice just created, and her poll that bob votes on, with the clock standing still
            let invite = try await alice.node.createChat(
                title: "Lunch", members: [bob.identity.publicKey, carol.identity.publicKey])
            try await bed.settle()
            let poll = try await alice.node.createPoll(chat: invite.id, question: "Pizza on Friday?")
            try await bed.settle()
            _ = try await bob.node.postVote(chat: invite.id, poll: poll.message.id, choices: ["down"])
            try await bed.settle()
            #expect(try alice.node.pollResults(chat: invite.id, poll: poll.message.id).tally.down == 1)

            // Then every member shows every other online: a member heard from is here
            for observer in bed.peers {
                for peer in bed.peers {
                    let shown = try observer.node.members(chat: invite.id).first { $0.peer == peer.identity.publicKey }
                    #expect(
                        shown?.status == .online && shown?.via == nil,
                        "\(observer.identity.publicKey.shortHex) shows \(peer.identity.publicKey.shortHex) as \(String(describing: shown?.status))"
                    )
                }
            }
        }
    }

    /// A member delivering another's messages (sync, PROTOCOL §12a) shows their author online only as
    /// recently as he wrote them: a hostile relayer holding old messages back cannot make him look here.
    @Test func aRelayedMessageShowsItsAuthorOnlineOnlyAsRecentlyAsHeWroteIt() async throws {
        // Given alice's chat with bob and mallory, and no session with bob (his node is not running)
        let bed = try await PumpedPeers.make(count: 3)
        let (alice, bob, mallory) = (bed.peers[0], bed.peers[1].identity.publicKey, bed.peers[2].identity.publicKey)
        let chat = try await alice.node.createChat(title: "Lunch", members: [bob, mallory]).id
        let now = bed.clock.wallMillis

        // When mallory delivers a message bob wrote a minute ago
        await alice.node.recordHeard(direct: [], relayed: [(bob, now - 60_000, mallory)])

        // Then bob is offline, last seen when he wrote it
        #expect(alice.node.presence(of: bob) == .offline(lastSeenWallMillis: now - 60_000))

        // When she delivers one he wrote 5 s ago
        await alice.node.recordHeard(direct: [], relayed: [(bob, now - 5_000, mallory)])

        // Then he is online through her, until the traffic timeout (12 s) counted from when he wrote it
        let shown = try alice.node.members(chat: chat).first { $0.peer == bob }
        #expect(shown?.status == .online && shown?.via == mallory)
        bed.clock.advance(by: .seconds(7))
        #expect(alice.node.presence(of: bob) == .offline(lastSeenWallMillis: now - 5_000))
    }

    @Test func aMemberHeardFromButNeverBeatingIsLastSeenWhenHeWasHeardOnceHisNodeStops() async throws {
        let bed = try await PumpedPeers.make(count: 2)
        let (alice, bob) = (bed.peers[0], bed.peers[1])
        try await Peers.running([alice]) {
            let (chat, heardAt) = try await withThrowingTaskGroup(of: Void.self) { bobRunning in
                bobRunning.addTask { try await bob.node.run() }
                try await bed.settle()
                // Given bob joined alice's chat and sent a message before any beat of his reached her
                let invite = try await alice.node.createChat(title: "Lunch", members: [bob.identity.publicKey])
                try await bed.settle()
                _ = try await bob.node.send(chat: invite.id, tag: .text, content: Array("on my way".utf8))
                try await bed.settle()
                let heardAt = bed.clock.wallMillis
                // When bob's node stops dead
                bobRunning.cancelAll()
                try? await bobRunning.waitForAll()
                await bob.node.transport.close()
                return (invite.id, heardAt)
            }

            // Then alice shows him online, and once the timeout has passed without a word from him,
            // offline and last seen when she heard him: not "never"
            let pump = NetworkPump(network: bed.network, clock: bed.clock, nodes: 1)
            try await pump.settle()
            #expect(try Self.isOnline(alice, bob, in: chat))
            let took = try await Self.advance(pump, upTo: .seconds(20)) { try !Self.isOnline(alice, bob, in: chat) }
            #expect(took.map { $0 > .zero && $0 <= .seconds(12) } == true, "offline after \(String(describing: took))")
            let shown = try alice.node.members(chat: chat).first { $0.peer == bob.identity.publicKey }
            #expect(shown?.status == .offline(lastSeenWallMillis: heardAt))
        }
    }

    @Test func aStoppedNodeGoesOfflineOnlyAfterThePresenceTimeout() async throws {
        let bed = try await PumpedPeers.make(count: 3)
        let (alice, bob, carol) = (bed.peers[0], bed.peers[1], bed.peers[2])
        try await Peers.running([alice, carol]) {
            let chat = try await withThrowingTaskGroup(of: Void.self) { bobRunning in
                bobRunning.addTask { try await bob.node.run() }
                try await bed.settle()
                let chat = try await Self.chatWithEveryoneOnline(bed)
                // When bob's node stops dead (no goodbye): it stops running, and what is sent to it goes nowhere
                bobRunning.cancelAll()
                try? await bobRunning.waitForAll()
                await bob.node.transport.close()
                return chat
            }

            // Then alice still shows him online while no time passes, and offline once at most 12 s
            // have passed on the clock without a beat (two nodes are left to step)
            let pump = NetworkPump(network: bed.network, clock: bed.clock, nodes: 2)
            try await pump.settle()
            #expect(try Self.isOnline(alice, bob, in: chat))
            let took = try await Self.advance(pump, upTo: .seconds(20)) { try !Self.isOnline(alice, bob, in: chat) }
            let elapsed = try #require(took, "bob never went offline")
            #expect(elapsed > .zero && elapsed <= .seconds(12), "offline after \(elapsed)")
            guard
                case let .offline(lastSeen?) = try alice.node.members(chat: chat).first(where: {
                    $0.peer == bob.identity.publicKey
                })?.status
            else {
                Issue.record("bob has no last-seen time")
                return
            }
            #expect(lastSeen <= bed.clock.wallMillis - elapsed.components.seconds * 1_000)
            // carol is still online, and alice always is to herself
            #expect(try Self.isOnline(alice, carol, in: chat) && Self.isOnline(alice, alice, in: chat))
        }
    }

    @Test func aGracefulShutdownShowsTheNodeOfflineAtOnce() async throws {
        let bed = try await PumpedPeers.make(count: 2)
        let (alice, bob) = (bed.peers[0], bed.peers[1])
        try await bed.running {
            let chat = try await Self.chatWithEveryoneOnline(bed)

            // When bob shuts down, with the clock standing still
            await bob.node.shutdown()
            try await bed.settle()

            // Then alice shows him offline without any time passing
            #expect(try !Self.isOnline(alice, bob, in: chat))
        }
    }
}
