import Foundation
import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTransport
import Testing

/// Findings of issue 32 through real `parley` processes: alice and bob run the real binary
/// (`$PARLEY_BIN` to try another build), mallory is a node inside this test that signs two
/// histories and sends each to one of them. Every expectation reads what the binaries print.
@Suite(.serialized, .processSuiteLimit)
struct ForkProcessTests {
    /// Alice and bob as `parley node` processes, mallory in process, all in one chat made by alice.
    final class Bed: @unchecked Sendable {
        let parley: ParleyBinary
        let nodes: [Process]
        let mallory: Node
        let malloryIdentity: Identity
        let running: Task<Void, any Error>
        let chat: String
        let ports: (alice: Int, bob: Int)

        init() async throws {
            parley = try ParleyBinary()
            let base = Ports.base()
            ports = (base, base + 1)
            for name in ["alice", "bob"] { _ = try parley.keygen(name) }
            nodes = [
                try parley.startNode("alice", port: ports.alice, peers: [ports.bob]),
                try parley.startNode("bob", port: ports.bob, peers: [ports.alice]),
            ]
            malloryIdentity = try Identity.generate()
            let transport = try await UDPTransport.bind(host: "127.0.0.1", port: 0)
            mallory = Node(
                configuration: NodeConfiguration(identity: malloryIdentity), store: try MessageStore.inMemory(),
                transport: transport)
            let node = mallory
            running = Task { try await node.run() }
            let malloryHex = malloryIdentity.publicKey.hex
            for (name, port) in [("alice", ports.alice), ("bob", ports.bob)] {
                let id = try IdentityFile.loadSecret(path: "\(parley.workspace)/keys/\(name).key").publicKey
                _ = try await mallory.addContact(
                    Contact(peer: id, name: name, address: PeerAddress(host: "127.0.0.1", port: UInt16(port))))
                try parley.client(
                    name, ["contacts", "add", malloryHex, "--name", "mallory", "--addr", "\(transport.localAddress)"])
            }
            try parley.client("alice", ["contacts", "add", "\(parley.workspace)/keys/bob.pub", "--name", "bob"])
            try parley.client("bob", ["contacts", "add", "\(parley.workspace)/keys/alice.pub", "--name", "alice"])
            chat = try parley.client("alice", ["chat", "create", "Lunch", "--member", "bob", "--member", "mallory"])
            let id = try ChatID(rawRepresentation: Hex.decode(chat))
            for _ in 0..<200 where try mallory.store.chat(id) == nil { try await Task.sleep(for: .milliseconds(100)) }
            try #require(try mallory.store.chat(id) != nil, "mallory never joined the chat")
        }

        var chatID: ChatID { get throws { try ChatID(rawRepresentation: Hex.decode(chat)) } }

        func stop() {
            running.cancel()
            nodes.forEach { $0.terminateAndWait() }
        }

        /// Waits (at most `seconds`) until mallory's node holds `message`.
        func malloryHolds(_ message: String, seconds: Double = 20) async throws -> Bool {
            let id = try MessageID(rawRepresentation: Hex.decode(message))
            for _ in 0..<Int(seconds * 10) {
                if try mallory.store.message(id) != nil { return true }
                try await Task.sleep(for: .milliseconds(100))
            }
            return false
        }

        /// Two messages of mallory's for her next free slot: `forAlice` goes to alice only, `forBob` to bob only.
        func fork(
            _ forAlice: (UInt64, MessageID?, EpochKey) throws -> Message,
            _ forBob: (UInt64, MessageID?, EpochKey) throws -> Message
        ) async throws {
            let chat = try chatID, me = malloryIdentity.publicKey
            let sequence = try mallory.store.nextSequence(chat: chat, author: me)
            let previous =
                sequence > 1 ? try mallory.store.messageID(chat: chat, author: me, sequence: sequence - 1) : nil
            let key = try #require(try mallory.store.membership(of: chat)?.sealingKey)
            let (a, b) = (try forAlice(sequence, previous, key), try forBob(sequence, previous, key))
            await mallory.transmit([.message(a.encoded)], to: try peer("alice"))
            await mallory.transmit([.message(b.encoded)], to: try peer("bob"))
        }

        func peer(_ name: String) throws -> PeerID {
            try IdentityFile.loadSecret(path: "\(parley.workspace)/keys/\(name).key").publicKey
        }

        /// A message of mallory's, sealed for the chat and signed.
        func signed(
            _ tag: ParleyCore.Tag, _ plaintext: [UInt8] = [], references: [MessageReference] = [], lamport: UInt64 = 50,
            slot: (UInt64, MessageID?, EpochKey)
        ) throws -> Message {
            let (sequence, previous, key) = slot
            let chat = try chatID, me = malloryIdentity.publicKey
            return try MessageDraft(
                chat: chat, author: me, sequence: sequence, previous: previous, lamport: lamport, timestampMillis: 0,
                tag: tag,
                content: SealedContent.seal(plaintext, with: key, chat: chat, author: me, sequence: sequence),
                references: references
            ).signed(by: malloryIdentity)
        }

        func results(_ name: String, _ poll: String) throws -> String {
            try parley.client(name, ["poll", "results", chat, poll, "--json"])
        }

        /// An honest in-process member added to the chat by alice (a secret poll needs three members
        /// besides its creator), running until the returned task is cancelled.
        func addHonestMember(_ name: String) async throws -> (node: Node, running: Task<Void, any Error>) {
            let identity = try Identity.generate()
            let transport = try await UDPTransport.bind(host: "127.0.0.1", port: 0)
            let node = Node(
                configuration: NodeConfiguration(identity: identity), store: try MessageStore.inMemory(),
                transport: transport)
            let running = Task { try await node.run() }
            for (other, port) in [("alice", ports.alice), ("bob", ports.bob)] {
                _ = try await node.addContact(
                    Contact(
                        peer: try peer(other), name: other, address: PeerAddress(host: "127.0.0.1", port: UInt16(port)))
                )
                try parley.client(
                    other,
                    ["contacts", "add", identity.publicKey.hex, "--name", name, "--addr", "\(transport.localAddress)"])
            }
            try parley.client("alice", ["chat", "add", chat, name])
            for _ in 0..<200 where try node.store.chat(chatID) == nil { try await Task.sleep(for: .milliseconds(100)) }
            try #require(try node.store.chat(chatID) != nil, "\(name) never joined the chat")
            return (node, running)
        }
    }

    @Test func aForkedVoteEndsAsOneResultOnBothRealNodes() async throws {
        let bed = try await Bed()
        defer { bed.stop() }
        // Given alice's poll, alice's up and bob's down, and mallory holding the poll
        let poll = try bed.parley.client("alice", ["poll", "create", bed.chat, "Pizza on Friday?"])
        #expect(
            bed.parley.eventually("bob", ["poll", "results", bed.chat, poll]) { _ in true }, "bob never got the poll")
        try bed.parley.client("alice", ["poll", "vote", bed.chat, poll, "up"])
        try bed.parley.client("bob", ["poll", "vote", bed.chat, poll, "down"])
        #expect(try await bed.malloryHolds(poll), "mallory never got the poll")
        let pollID = try MessageID(rawRepresentation: Hex.decode(poll))

        // When mallory signs "up" for alice and "down" for bob in one slot of her chain
        try await bed.fork(
            {
                try bed.signed(
                    .pollVoteUp, references: [MessageReference(id: pollID, tag: .pollVoteUp)], slot: ($0, $1, $2))
            },
            {
                try bed.signed(
                    .pollVoteDown, references: [MessageReference(id: pollID, tag: .pollVoteDown)], slot: ($0, $1, $2))
            })

        // Then both nodes end with one result, her vote disputed, and show it with her name
        let mallory = bed.malloryIdentity.publicKey.hex
        for name in ["alice", "bob"] {
            let settled = bed.parley.eventually(name, ["poll", "results", bed.chat, poll, "--json"], seconds: 30) {
                $0.contains("\"up\":1") && $0.contains("\"down\":1") && $0.contains(mallory)
                    && $0.contains("\"disputes\"")
            }
            print(
                "poll results on \(name): "
                    + ((try? bed.parley.client(name, ["poll", "results", bed.chat, poll])) ?? "?"))
            #expect(settled, "\(name): \((try? bed.results(name, poll)) ?? "?")")
        }
        #expect(
            try bed.parley.client("alice", ["poll", "results", bed.chat, poll]).contains("mallory signed two histories")
        )
    }

    @Test func aForkedCloseLeavesThePollDisputedOnBothRealNodes() async throws {
        let bed = try await Bed()
        defer { bed.stop() }
        // Given mallory's poll with alice's up and bob's down
        let poll = try await bed.mallory.createPoll(chat: try bed.chatID, question: "Lake?").id.hex
        #expect(
            bed.parley.eventually("bob", ["poll", "results", bed.chat, poll]) { _ in true }, "bob never got the poll")
        #expect(
            bed.parley.eventually("alice", ["poll", "results", bed.chat, poll]) { _ in true },
            "alice never got the poll")
        try bed.parley.client("alice", ["poll", "vote", bed.chat, poll, "up"])
        try bed.parley.client("bob", ["poll", "vote", bed.chat, poll, "down"])
        let pollID = try MessageID(rawRepresentation: Hex.decode(poll))
        let alice = try bed.peer("alice")

        // When she closes it once for alice (covering alice's first message only) and once for bob (covering nothing)
        try await bed.fork(
            {
                try bed.signed(
                    .pollClose, PollCoverage(holdings: [alice: .contiguous(1)]).encoded(),
                    references: [MessageReference(id: pollID, tag: .pollClose)], slot: ($0, $1, $2))
            },
            {
                try bed.signed(
                    .pollClose, PollCoverage(holdings: [:]).encoded(),
                    references: [MessageReference(id: pollID, tag: .pollClose)], slot: ($0, $1, $2))
            })

        // Then neither node shows either closed result: the poll is disputed on both, with one open tally
        for name in ["alice", "bob"] {
            let disputed = bed.parley.eventually(name, ["poll", "results", bed.chat, poll, "--json"], seconds: 30) {
                $0.contains("\"phase\":\"disputed\"") && $0.contains("\"up\":1") && $0.contains("\"down\":1")
            }
            print(
                "poll results on \(name): "
                    + ((try? bed.parley.client(name, ["poll", "results", bed.chat, poll])) ?? "?"))
            #expect(disputed, "\(name): \((try? bed.results(name, poll)) ?? "?")")
        }
    }

    @Test func aSecondCloseWithALowerClockChangesNothingOnBothRealNodes() async throws {
        let bed = try await Bed()
        defer { bed.stop() }
        // Given mallory's poll, alice's up and bob's down, and mallory's close covering both
        let chat = try bed.chatID
        let poll = try await bed.mallory.createPoll(chat: chat, question: "Hills?")
        for name in ["alice", "bob"] {
            #expect(
                bed.parley.eventually(name, ["poll", "results", bed.chat, poll.id.hex]) { _ in true },
                "\(name) never got the poll")
        }
        try bed.parley.client("alice", ["poll", "vote", bed.chat, poll.id.hex, "up"])
        try bed.parley.client("bob", ["poll", "vote", bed.chat, poll.id.hex, "down"])
        for _ in 0..<200
        where try bed.mallory.pollSnapshot(chat: chat, poll: poll.id).tally.map({ $0.up + $0.down }) != 2 {
            try await Task.sleep(for: .milliseconds(100))
        }
        let first = try await bed.mallory.closePoll(chat: chat, poll: poll.id)
        for name in ["alice", "bob"] {
            let closed = bed.parley.eventually(name, ["poll", "results", bed.chat, poll.id.hex, "--json"]) {
                $0.contains("\"isClosed\":true")
            }
            #expect(closed, "\(name) never saw the close")
        }

        // When she sends a second close at her next sequence, claiming a lower clock, covering only alice
        let alice = try bed.peer("alice")
        let sequence = try bed.mallory.store.nextSequence(chat: chat, author: bed.malloryIdentity.publicKey)
        let key = try #require(try bed.mallory.store.membership(of: chat)?.sealingKey)
        let second = try bed.signed(
            .pollClose, PollCoverage(holdings: [alice: .contiguous(UInt64.max >> 2)]).encoded(),
            references: [MessageReference(id: poll.id, tag: .pollClose)], lamport: first.message.lamport - 1,
            slot: (sequence, first.message.id, key))
        for name in ["alice", "bob"] { await bed.mallory.transmit([.message(second.encoded)], to: try bed.peer(name)) }

        // Then both still show the first close's result (1–1), and count the later close
        for name in ["alice", "bob"] {
            let counted = bed.parley.eventually(
                name, ["poll", "results", bed.chat, poll.id.hex, "--json"], seconds: 30
            ) {
                $0.contains("\"laterCloses\":1")
            }
            let shown = try bed.results(name, poll.id.hex)
            print(
                "poll results on \(name): "
                    + ((try? bed.parley.client(name, ["poll", "results", bed.chat, poll.id.hex])) ?? "?"))
            #expect(counted && shown.contains("\"up\":1") && shown.contains("\"down\":1"), "\(name): \(shown)")
        }
    }

    @Test func aForkedBallotKeyLeavesOneSecretResultOnBothRealNodes() async throws {
        let bed = try await Bed()
        defer { bed.stop() }
        let chat = try bed.chatID
        let carol = try await bed.addHonestMember("carol")
        defer { carol.running.cancel() }
        for _ in 0..<200 where try bed.mallory.store.members(of: chat)?.contains(carol.node.me) != true {
            try await Task.sleep(for: .milliseconds(100))
        }
        for _ in 0..<200 where try bed.mallory.store.membership(of: chat)?.sealingKey == nil {
            try await Task.sleep(for: .milliseconds(100))
        }
        // Given mallory's node, which does not publish its ballot key by itself (she does, by hand)
        bed.mallory.secretBallots.notePublishedKey(in: chat)

        // When she signs her real ballot key for alice and another key for bob, in one slot of her chain
        let real = try bed.mallory.ballotKeyPair(chat: chat).publicKey.rawRepresentation
        let other = try BallotKeyPair(identity: Identity.generate(), chat: chat.rawRepresentation).publicKey
            .rawRepresentation
        let sequence = try bed.mallory.store.nextSequence(chat: chat, author: bed.malloryIdentity.publicKey)
        try await bed.fork(
            { try bed.signed(.ballotKey, real, slot: ($0, $1, $2)) },
            { try bed.signed(.ballotKey, other, slot: ($0, $1, $2)) })

        // and alice posts a secret poll closing in 20 s, whose electorate lists mallory with her real key
        let created = try bed.parley.client(
            "alice", ["poll", "create", bed.chat, "Raise dues?", "--secret", "--closes-at", "+20s", "--json"])
        let poll = try #require(Self.json(created)["id"] as? String, "\(created)")
        let electorate = (try Self.json(created)["secret"] as? [String: Any])?["electorate"] as? [[String: Any]] ?? []
        #expect(electorate.compactMap { $0["id"] as? String }.contains(bed.malloryIdentity.publicKey.hex), "\(created)")
        let pollID = try MessageID(rawRepresentation: Hex.decode(poll))
        #expect(
            bed.parley.eventually("bob", ["poll", "results", bed.chat, poll]) { _ in true }, "bob never got the poll")
        #expect(try await bed.malloryHolds(poll), "mallory never got the poll")

        // and alice and mallory vote up, bob down
        try bed.parley.client("alice", ["poll", "vote", bed.chat, poll, "up"])
        try bed.parley.client("bob", ["poll", "vote", bed.chat, poll, "down"])
        #expect(try await bed.mallory.vote(chat: chat, poll: pollID, choices: ["up"]).secretBallot != nil)

        // Then after the close (20 s, then the 25 s release window) both show up 2, down 1, final, with no electorate problem
        var shown: [String] = []
        for name in ["alice", "bob"] {
            let final = bed.parley.eventually(name, ["poll", "results", bed.chat, poll, "--json"], seconds: 75) {
                ((try? Self.json($0)["secret"]) as? [String: Any])?["resultsFinal"] as? Bool == true
            }
            print(
                "poll results on \(name): "
                    + ((try? bed.parley.client(name, ["poll", "results", bed.chat, poll])) ?? "?"))
            let results = try Self.json(try bed.results(name, poll))
            let secret = results["secret"] as? [String: Any] ?? [:]
            #expect(final, "\(name): \(results)")
            #expect(secret["electorateProblem"] == nil || secret["electorateProblem"] is NSNull, "\(name): \(results)")
            #expect(results["up"] as? Int == 2 && results["down"] as? Int == 1, "\(name): \(results)")
            #expect(secret["counted"] as? Int == 3, "\(name): \(results)")
            shown.append("\(results["up"] ?? "-") \(results["down"] ?? "-") \(secret["counted"] ?? "-")")
            // and each holds the proof of her fork at that slot
            let members = try bed.parley.client(name, ["members", bed.chat, "--json"])
            #expect(members.contains("\"forkedFrom\":\(sequence)"), "\(name): \(members)")
        }
        #expect(shown.count == 2 && shown[0] == shown[1], "\(shown)")
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(
            try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not a JSON object: \(text)")
    }
}
