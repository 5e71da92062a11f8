import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Synchronization
import Testing

/// A test bed for hostile input: alice, bob and mallory in one chat over the in-memory network, on
/// one manual clock, stepped by a `NetworkPump` (the clock stands still unless a test advances it).
/// Every transport is tapped so captured datagrams can be replayed, and a raw endpoint sends any bytes.
struct HostileBed {
    typealias Peers = LossyNetworkConvergenceTests

    let network: InMemoryNetwork
    let clock: ManualClock
    let pump: NetworkPump
    let alice: Peers.Peer, bob: Peers.Peer, mallory: Peers.Peer
    /// Honest members beyond alice and bob, for rules that need more members (a secret poll's).
    let others: [Peers.Peer]
    let taps: [PeerID: CapturingTransport]
    let raw: InMemoryTransport
    let invite: ChatInvite
    var peers: [Peers.Peer] { [alice, bob, mallory] + others }

    static func make(rateLimits: RateLimiter.Configuration = .init(), syncFanout: Int = 4, others: Int = 0) async throws
        -> HostileBed
    {
        let network = InMemoryNetwork(delivery: .held), clock = ManualClock()
        var taps: [PeerID: CapturingTransport] = [:]
        let peers = try (0..<3 + others).map { _ in
            let identity = try Identity.generate()
            var configuration = NodeConfiguration(identity: identity)
            configuration.rateLimits = rateLimits
            configuration.syncFanout = syncFanout
            let tap = CapturingTransport(network.makeTransport())
            taps[identity.publicKey] = tap
            return Peers.Peer(
                identity: identity,
                node: Node(
                    configuration: configuration, store: try MessageStore.inMemory(), transport: tap, clock: clock))
        }
        try await Peers.introduce(peers)
        let invite = try await peers[0].node.createChat(
            title: "Bed", members: peers.dropFirst().map(\.identity.publicKey))
        return HostileBed(
            network: network, clock: clock, pump: NetworkPump(network: network, clock: clock, nodes: peers.count),
            alice: peers[0], bob: peers[1], mallory: peers[2], others: Array(peers.dropFirst(3)), taps: taps,
            raw: network.makeTransport(), invite: invite)
    }

    /// Runs the three nodes, and drains what reaches the raw endpoint (so the pump sees it idle);
    /// `body` starts once the network is quiet and bob and mallory have joined the chat.
    func running(_ body: @Sendable () async throws -> Void) async throws {
        try await Peers.running(peers) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { for await _ in raw.inbound {} }
                do {
                    try await settle()
                    for member in peers.dropFirst() {
                        try #require(try member.node.store.chat(invite.id) != nil, "a member never joined the chat")
                    }
                    try await body()
                } catch {
                    group.cancelAll()
                    throw error
                }
                group.cancelAll()
            }
        }
    }

    /// Delivers what was sent and lets every node handle it, until nothing more is sent.
    func settle() async throws { try await pump.settle() }

    /// Sends bytes to `target` from the raw endpoint, in batches like a socket read would yield them.
    func inject(_ datagrams: [[UInt8]], to target: Peers.Peer) async {
        for chunk in stride(from: 0, to: datagrams.count, by: 64) {
            await raw.send(
                datagrams[chunk..<min(chunk + 64, datagrams.count)].map {
                    Datagram(address: target.node.localAddress, bytes: $0)
                })
        }
    }

    func rejections(of peer: Peers.Peer) async -> [String: Int] { await peer.node.status().rejections }

    /// What `sender` has sent to `receiver` so far, of one packet type, as a LAN observer captured it.
    func captured(from sender: Peers.Peer, to receiver: Peers.Peer, type: UInt8) -> [[UInt8]] {
        taps[sender.identity.publicKey]!.captured.withLock { $0 }
            .filter { $0.address == receiver.node.localAddress && $0.bytes.count > 1 && $0.bytes[1] == type }.map(
                \.bytes)
    }

    /// `from` writes to the chat and, once the network is quiet, `to` holds it: the honest path still works.
    func honestMessageArrives(_ text: String, from sender: Peers.Peer, to receiver: Peers.Peer) async throws -> Bool {
        let sent = try await sender.node.sendText(chat: invite.id, text)
        try await settle()
        return try receiver.node.store.message(sent.message.id) != nil
    }

    /// Every counter of `peer`'s that moved since `before`, by how much.
    func delta(of peer: Peers.Peer, from before: [String: Int]) async -> [String: Int] {
        await rejections(of: peer).reduce(into: [:]) { result, entry in
            if entry.value != before[entry.key, default: 0] {
                result[entry.key] = entry.value - before[entry.key, default: 0]
            }
        }
    }
}

extension [UInt8] {
    /// A copy with one byte flipped.
    func flipping(at index: Int) -> [UInt8] {
        var copy = self
        copy[index] ^= 0x5A
        return copy
    }
}

/// Raw datagrams anyone on the LAN can send, with no session: each is refused and counted under its
/// reason, no other counter moves, and bob's next message to alice still arrives.
struct HostileDatagramTests {
    enum Attack: String, CaseIterable, CustomTestStringConvertible {
        case truncatedHeaders, truncatedCiphertext, oversized, wrongVersions, unknownSession, replayedData,
            replayedHandshake, replayedAnnounce, staleAnnounce, forgedAnnounce, forgedHandshake, strayHandshakeResponse
        var testDescription: String { rawValue }
    }

    @Test(arguments: Attack.allCases)
    func aHostileDatagramIsRefusedAndCountedAndNothingValidIsLost(_ attack: Attack) async throws {
        // Given alice, bob and mallory chatting, with everyone's traffic captured
        let bed = try await HostileBed.make()
        try await bed.running {
            #expect(try await bed.honestMessageArrives("before", from: bed.bob, to: bed.alice))
            // (alice created the chat, so she started the handshakes: her init to bob can be replayed to bob)
            let target = attack == .replayedHandshake ? bed.bob : bed.alice
            let before = await bed.rejections(of: target)

            // When the raw endpoint sends the hostile datagrams
            let (datagrams, expected) = try Self.datagrams(for: attack, bed: bed)
            await bed.inject(datagrams, to: target)
            try await bed.settle()

            // Then the target counts each under its reason and nothing else
            #expect(await bed.delta(of: target, from: before) == expected)
            // and keeps working: the other honest member's next message arrives, and status still answers
            let sender = target.identity.publicKey == bed.alice.identity.publicKey ? bed.bob : bed.alice
            #expect(try await bed.honestMessageArrives("after \(attack)", from: sender, to: target))
            #expect(await target.node.status().connectedPeers.count == 2)
        }
    }

    static func datagrams(for attack: Attack, bed: HostileBed) throws -> ([[UInt8]], [String: Int]) {
        let wall = bed.clock.wallMillis
        let data = bed.captured(from: bed.bob, to: bed.alice, type: 3)
        try #require(!data.isEmpty, "bob never sent alice a data packet")
        switch attack {
        case .truncatedHeaders:
            // Every prefix of a data packet that is too short to hold a header and a tag.
            let prefixes = (0..<min(30, data[0].count)).map { Array(data[0].prefix($0)) }
            return (prefixes, ["malformed": prefixes.count])
        case .truncatedCiphertext:
            // Cut short in flight, before alice saw them (so with counters she has not seen yet).
            let fresh = data.prefix(2).enumerated().map { index, packet in
                Packet.dataHeader(
                    receiverIndex: UInt32(packet[2..<6].reduce(0) { $0 << 8 | UInt32($1) }),
                    counter: 1 << 40 + UInt64(index))
                    + packet.dropFirst(Packet.dataHeaderBytes).dropLast(1)
            }
            return (fresh, ["decryptFailed": fresh.count])
        case .oversized:
            return ([[1, 3] + [UInt8](repeating: 0xAB, count: Packet.maxDatagramBytes)], ["malformed": 1])
        case .wrongVersions:
            let versions: [UInt8] = [0, 1, 3, 255] // 1: the wire protocol before hash chains
            return (versions.map { [$0] + data[0].dropFirst() }, ["unsupportedVersion": versions.count])
        case .unknownSession:
            return (
                [
                    Packet.data(receiverIndex: 0xDEAD_BEEF, counter: 1, sealed: [UInt8](repeating: 7, count: 40))
                        .encoded()
                ], ["unknownSession": 1]
            )
        case .replayedData:
            return (data, ["replayed": data.count])
        case .replayedHandshake:
            let inits = bed.captured(from: bed.alice, to: bed.bob, type: 1)
            try #require(!inits.isEmpty, "alice never sent bob a handshake init")
            return (inits, ["replayed": inits.count])
        case .replayedAnnounce:
            let announce = Announcement.make(identity: bed.bob.identity, wallMillis: wall).encoded()
            return ([announce, announce], ["replayed": 1])
        case .staleAnnounce:
            return ([Announcement.make(identity: bed.bob.identity, wallMillis: wall - 600_000).encoded()], ["stale": 1])
        case .forgedAnnounce:
            let forged = Announcement.make(identity: try Identity.generate(), wallMillis: wall)
            guard case let .announce(_, timestamp, signature) = forged else {
                throw CoreError.invalid("not an announce")
            }
            // A fresh signature by someone else, claimed for bob.
            return (
                [
                    Packet.announce(peer: bed.bob.identity.publicKey, timestampMillis: timestamp, signature: signature)
                        .encoded()
                ], ["badSignature": 1]
            )
        case .forgedHandshake:
            // Well formed, but the sealed box was not made with alice's key.
            let ephemeral = try EphemeralKeyPair.generate().publicKey
            let sealed = [UInt8](repeating: 0x42, count: Packet.handshakeInitSealedBytes)
            return (
                [Packet.handshakeInit(senderIndex: 99, ephemeral: ephemeral, sealed: sealed).encoded()],
                ["decryptFailed": 1]
            )
        case .strayHandshakeResponse:
            let ephemeral = try EphemeralKeyPair.generate().publicKey
            let sealed = [UInt8](repeating: 0, count: Packet.handshakeResponseSealedBytes)
            return (
                [
                    Packet.handshakeResponse(
                        senderIndex: 1, receiverIndex: 0xFEED, ephemeral: ephemeral, sealed: sealed
                    ).encoded()
                ], ["unknownSession": 1]
            )
        }
    }

    @Test func randomDatagramsAreAllCountedAndNoneIsAccepted() async throws {
        // Given the chat bed, and a thousand random datagrams of random lengths (seeded), some with a valid header start
        let bed = try await HostileBed.make()
        var random = SplitMix64(seed: 2_026)
        let datagrams: [[UInt8]] = (0..<1_000).map { index in
            var bytes = (0..<Int.random(in: 0...1_500, using: &random)).map { _ in
                UInt8.random(in: 0...255, using: &random)
            }
            if index.isMultiple(of: 3), bytes.count > 2 { bytes[0] = 1; bytes[1] = UInt8(1 + index % 4) }
            return bytes
        }
        try await bed.running {
            let before = await bed.rejections(of: bed.alice)
            let messagesBefore = try bed.alice.node.store.messages(matching: MessageCriteria(chat: bed.invite.id)).count

            // When they reach alice
            await bed.inject(datagrams, to: bed.alice)
            try await bed.settle()

            // Then every one is counted as a rejection, and alice stored nothing from them
            let total = await bed.delta(of: bed.alice, from: before).reduce(0) { $0 + $1.value }
            #expect(total == datagrams.count, "counted \(total)")
            #expect(
                try bed.alice.node.store.messages(matching: MessageCriteria(chat: bed.invite.id)).count
                    == messagesBefore)
            #expect(try await bed.honestMessageArrives("still fine", from: bed.bob, to: bed.alice))
        }
    }
}

/// Frames from mallory, a chat member with a real session with alice: each hostile one is refused
/// (or, for a vote on a non-poll, stored but never tallied) and counted.
struct HostileMemberTests {
    enum Attack: String, CaseIterable, CustomTestStringConvertible {
        case forgedSignature, tamperedContent, forgedInvite, strangersMessage, unknownChat, garbageFrame,
            wrongMessageVersion, voteOnANonPoll
        var testDescription: String { rawValue }
    }

    @Test(arguments: Attack.allCases)
    func aHostileFrameFromAMemberIsRefusedAndCounted(_ attack: Attack) async throws {
        // Given alice, bob and mallory in a chat, mallory with a session with alice
        let bed = try await HostileBed.make()
        try await bed.running {
            let text = try await bed.bob.node.sendText(chat: bed.invite.id, "a plain text message")
            try await bed.settle()
            try #require(try bed.alice.node.store.message(text.message.id) != nil)
            let before = await bed.rejections(of: bed.alice)

            // When mallory sends alice the hostile frame through her session
            let (frame, expected) = try Self.frame(for: attack, bed: bed, text: text.message)
            await bed.mallory.node.transmit([frame], to: bed.alice.identity.publicKey)
            try await bed.settle()

            // Then alice counts it under its reason and nothing else
            #expect(await bed.delta(of: bed.alice, from: before) == expected)
            // and the chat goes on between the honest members
            #expect(try await bed.honestMessageArrives("after \(attack)", from: bed.bob, to: bed.alice))
            if attack == .voteOnANonPoll, case let .message(bytes) = frame {
                // A vote on a text message is kept like any member's message, but there is no poll to count it for
                #expect(try bed.alice.node.store.message(try Message(decoding: bytes).id) != nil)
                #expect(throws: NodeError.self) {
                    try bed.alice.node.pollResults(chat: bed.invite.id, poll: text.message.id)
                }
            }
        }
    }

    static func frame(for attack: Attack, bed: HostileBed, text: Message) throws -> (Frame, [String: Int]) {
        let mallory = bed.mallory.identity
        func draft(
            chat: ChatID = bed.invite.id, author: PeerID = mallory.publicKey, tag: ParleyCore.Tag = .text,
            references: [MessageReference] = []
        ) -> MessageDraft {
            MessageDraft(
                chat: chat, author: author, sequence: 1, lamport: 1, timestampMillis: 0, tag: tag,
                content: Array("mallory was here".utf8), references: references)
        }
        switch attack {
        case .forgedSignature:
            let message = try draft().sealedAndSigned(in: bed.invite, by: mallory)
            return (.message(message.encoded.flipping(at: message.encoded.count - 1)), ["badSignature": 1])
        case .tamperedContent:
            let message = try draft().sealedAndSigned(in: bed.invite, by: mallory)
            // The last content byte, before the seal byte and the signature: the id changes, so the signature fails
            return (.message(message.encoded.flipping(at: message.encoded.count - 64 - 2)), ["badSignature": 1])
        case .forgedInvite:
            return (.invite(bed.invite.encoded.flipping(at: bed.invite.encoded.count - 1)), ["badSignature": 1])
        case .strangersMessage:
            let stranger = try Identity.generate()
            return (
                .message(try draft(author: stranger.publicKey).sealedAndSigned(in: bed.invite, by: stranger).encoded),
                ["notMember": 1]
            )
        case .unknownChat:
            let elsewhere = try ChatInvite.create(
                by: mallory, title: "Elsewhere", members: [bed.alice.identity.publicKey], createdAtMillis: 0)
            return (.message(try draft(chat: elsewhere.id).signed(by: mallory).encoded), ["unknownChat": 1])
        case .garbageFrame:
            return (.message([WireVersion.current, 1, 0xFF, 0xFF]), ["malformed": 1])
        case .wrongMessageVersion:
            let message = try draft().sealedAndSigned(in: bed.invite, by: mallory)
            return (.message([1] + message.encoded.dropFirst()), ["unsupportedVersion": 1]) // wire protocol 1: refused
        case .voteOnANonPoll:
            let vote = try draft(tag: .pollVoteUp, references: [MessageReference(id: text.id, tag: .pollVoteUp)])
                .sealedAndSigned(in: bed.invite, by: mallory)
            return (.message(vote.encoded), ["notAPoll": 1])
        }
    }

    @Test func aThousandVotesFromOneAuthorCountAsOneBallotEverywhere() async throws {
        // Given alice's poll, on which alice votes up and bob down
        let bed = try await HostileBed.make()
        try await bed.running {
            let poll = try await bed.alice.node.createPoll(chat: bed.invite.id, question: "Pizza?")
            try await bed.settle()
            try #require(try bed.peers.allSatisfy { try $0.node.store.message(poll.message.id) != nil })
            _ = try await bed.alice.node.postVote(chat: bed.invite.id, poll: poll.message.id, choices: ["up"])
            _ = try await bed.bob.node.postVote(chat: bed.invite.id, poll: poll.message.id, choices: ["down"])

            // When mallory floods alice and bob with a thousand signed votes on it, alternating, the last one up,
            // each linked to the one before (unlinked ones would be a fork, PROTOCOL.md §4.4: ForkProofTests)
            var votes: [Frame] = []
            var previous: MessageID?
            for index in 0..<1_000 {
                let tag: ParleyCore.Tag = index.isMultiple(of: 2) ? .pollVoteDown : .pollVoteUp
                let vote = try MessageDraft(
                    chat: bed.invite.id, author: bed.mallory.identity.publicKey, sequence: UInt64(index + 1),
                    previous: previous,
                    lamport: UInt64(index + 10), timestampMillis: 0, tag: tag, content: [],
                    references: [MessageReference(id: poll.message.id, tag: tag)]
                ).sealedAndSigned(in: bed.invite, by: bed.mallory.identity)
                votes.append(.message(vote.encoded))
                previous = vote.id
            }
            for member in [bed.alice, bed.bob] { await bed.mallory.node.transmit(votes, to: member.identity.publicKey) }
            try await bed.settle()

            // Then both hold every vote (nothing valid is dropped) and count one ballot per author, mallory's last
            let expected = 1 + 2 + 1_000
            for peer in [bed.alice, bed.bob] {
                #expect(try peer.node.store.messages(matching: MessageCriteria(chat: bed.invite.id)).count == expected)
            }
            let tallies = try [bed.alice, bed.bob].map {
                try $0.node.pollResults(chat: bed.invite.id, poll: poll.message.id).tally
            }
            #expect(tallies[0] == tallies[1])
            #expect((tallies[0].up, tallies[0].down, tallies[0].ballots.count) == (2, 1, 3))
            #expect(tallies[0].choice(of: bed.mallory.identity.publicKey) == .up)
            // and the honest members still talk
            #expect(try await bed.honestMessageArrives("enough", from: bed.bob, to: bed.alice))
        }
    }
}

/// A flood from one source is cut to that source's budget before any crypto work, so it cannot
/// starve other peers. The clock stands still, so no bucket refills and the counts are exact.
struct FloodTests {
    @Test func aReplayedHandshakeFloodIsRateLimitedWhileOtherPeersStillGetThrough() async throws {
        // Given alice, bob and mallory on a clock that does not move, and alice's captured handshake init to bob
        let bed = try await HostileBed.make()
        try await bed.running {
            let inits = bed.captured(from: bed.alice, to: bed.bob, type: 1)
            try #require(inits.count == 1)
            let before = await bed.rejections(of: bed.bob)

            // When the raw endpoint replays it 20,000 times at bob, while alice and mallory post to the chat
            async let flood: Void = bed.inject([[UInt8]](repeating: inits[0], count: 20_000), to: bed.bob)
            var posted: [MessageID] = []
            for index in 0..<20 {
                posted.append(try await bed.alice.node.sendText(chat: bed.invite.id, "alice \(index)").message.id)
                posted.append(try await bed.mallory.node.sendText(chat: bed.invite.id, "mallory \(index)").message.id)
            }
            await flood
            try await bed.settle()

            // Then only the source's burst (50) is opened and found replayed; the rest is dropped unopened
            let burst = Int(RateLimiter.Configuration().handshakePerSource.burst)
            #expect(await bed.delta(of: bed.bob, from: before) == ["rateLimited": 20_000 - burst, "replayed": burst])
            // and every message from alice and from mallory (who had to handshake with bob meanwhile) arrives
            #expect(try posted.allSatisfy { try bed.bob.node.store.message($0) != nil })
        }
    }
}
