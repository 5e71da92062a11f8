import Foundation
import ParleyCore
import ParleyCrypto
import ParleyStore
import Testing

/// A closed poll stays closed across three real `parley` nodes, even against a member whose modified
/// client signs a vote after the close and claims a Lamport clock and timestamp just below it.
@Suite(.serialized, .processSuiteLimit)
struct PollCloseProcessTests {
    struct Results: Decodable {
        let up: Int?, down: Int?
        let isClosed: Bool
        let phase: String?
        let ownBallot: String?
    }

    func results(_ parley: ParleyBinary, _ name: String, _ chat: String, _ poll: String) throws -> Results {
        try JSONDecoder().decode(
            Results.self, from: Data(try parley.client(name, ["poll", "results", chat, poll, "--json"]).utf8))
    }

    @Test func aVoteSignedAfterTheCloseWithAnEarlierClockIsNotCountedOnAnyNode() async throws {
        // Given alice, bob and mallory on loopback, a yes/no poll by alice, bob's "down", and alice's close
        let parley = try ParleyBinary()
        let names = ["alice", "bob", "mallory"], base = Ports.base()
        let port = { (name: String) in base + names.firstIndex(of: name)! }
        for name in names { _ = try parley.keygen(name) }
        var nodes = try names.map { name in
            try parley.startNode(name, port: port(name), peers: names.filter { $0 != name }.map(port))
        }
        defer { nodes.forEach { $0.terminateAndWait() } }
        for me in names {
            for other in names where other != me {
                try parley.client(me, ["contacts", "add", "\(parley.workspace)/keys/\(other).pub", "--name", other])
            }
        }
        let chat = try parley.client("alice", ["chat", "create", "Lunch", "--member", "bob", "--member", "mallory"])
        let poll = try parley.client("alice", ["poll", "create", chat, "Pizza?"])
        let resultsJSON = ["poll", "results", chat, poll, "--json"]
        for name in ["bob", "mallory"] {
            #expect(parley.eventually(name, resultsJSON) { _ in true }, "\(name) never got the poll")
        }
        try parley.client("bob", ["poll", "vote", chat, poll, "down"])
        #expect(parley.eventually("alice", resultsJSON) { $0.contains("\"down\":1") }, "alice never got bob's vote")
        try parley.client("alice", ["poll", "close", chat, poll])
        for name in names {
            #expect(
                parley.eventually(name, resultsJSON) { $0.contains("\"isClosed\":true") }, "\(name) never saw the close"
            )
        }

        // When mallory's modified client, node stopped, writes an "up" after the close, claiming the
        // close's Lamport clock and timestamp minus one, and her restarted node sends it
        nodes[2].terminateAndWait()
        try? FileManager.default.removeItem(atPath: parley.data("mallory") + "/control.sock")
        let forged = try await forgeLateVote(parley, chat: chat, poll: poll)
        nodes[2] = try parley.startNode("mallory", port: port("mallory"), peers: [port("alice"), port("bob")])

        // Then alice and bob hold the vote, and every node still counts only bob's "down"
        for name in ["alice", "bob"] {
            let arrived = parley.eventually(name, ["messages", chat, "--tag", "PollVoteUp", "--json"], seconds: 30) {
                $0.contains(forged.hex)
            }
            #expect(arrived, "\(name) never got mallory's vote")
        }
        for name in ["alice", "mallory"] {
            print("poll results on \(name):\n" + (try parley.client(name, ["poll", "results", chat, poll])))
        }
        for name in names {
            print("poll results --json on \(name): " + (try parley.client(name, resultsJSON)))
            let shown = try results(parley, name, chat, poll)
            #expect(shown.up == 0 && shown.down == 1, "\(name) counts up \(shown.up ?? -1), down \(shown.down ?? -1)")
            #expect(shown.isClosed && shown.phase == "closed", "\(name): \(shown.phase ?? "no phase")")
        }
        #expect(try results(parley, "mallory", chat, poll).ownBallot == "afterClose")
        #expect(try results(parley, "bob", chat, poll).ownBallot == "counted")
    }

    /// What a modified client does on mallory's stopped node: signs an "up" sealed with the chat's
    /// key, whose clock and timestamp claim to precede the close, and stores it as an own message not
    /// yet delivered (which a restarted node pushes), with the vote recorded as `poll vote` records it.
    /// The store closes on return.
    func forgeLateVote(_ parley: ParleyBinary, chat chatHex: String, poll pollHex: String) async throws -> MessageID {
        let store = try MessageStore.open(path: parley.data("mallory") + "/parley.sqlite")
        let identity = try IdentityFile.loadSecret(path: "\(parley.workspace)/keys/mallory.key")
        let chat = try ChatID(rawRepresentation: Hex.decode(chatHex)),
            poll = try MessageID(rawRepresentation: Hex.decode(pollHex))
        let close = try #require(
            try store.messages(matching: MessageCriteria(chat: chat, tag: .pollClose)).first?.message)
        let key = try #require(try store.membership(of: chat)?.sealingKey)
        let mallory = identity.publicKey
        let sequence = try store.nextSequence(chat: chat, author: mallory)
        let vote = try MessageDraft(
            chat: chat, author: mallory, sequence: sequence, lamport: close.lamport - 1,
            timestampMillis: close.timestampMillis - 1,
            tag: .pollVoteUp,
            content: SealedContent.seal([], with: key, chat: chat, author: mallory, sequence: sequence),
            references: [MessageReference(id: poll, tag: .pollVoteUp)]
        ).signed(by: identity)
        let outcomes = try await store.insert(
            [vote], receivedAtMillis: Int64(Date().timeIntervalSince1970 * 1000), ownAuthor: mallory, ownSent: true)
        #expect(outcomes.first?.storedMessage?.state == .sent, "mallory's store took the vote as \(outcomes)")
        try await store.setLocalData(message: poll, key: "pollVote", value: "up")
        return vote.id
    }
}
