import Foundation
import ParleyCore
import ParleyCrypto
@testable import ParleyStore
import Testing

/// What the real `parley node` keeps from other local users, from its own logs, and from a damaged store.
// Its async tests wait for threads of the cooperative pool, which the other process suites hold while they
// wait for their binaries (a file fetched under 30% loss takes minutes in a debug build): a limit of
// 2 minutes was met alone in 1 s and missed in the whole run.
@Suite(.processSuiteLimit)
struct LocalSecurityTests {
    @Test func atTraceLevelTheLogsHoldNeitherPlaintextNorTitlesNorKeys() throws {
        // Given alice and bob on loopback, both logging at trace level
        let parley = try ParleyBinary()
        let base = Ports.base()
        for name in ["alice", "bob"] { _ = try parley.keygen(name) }
        var nodes: [Process] = []
        defer { nodes.forEach { $0.terminateAndWait() } }
        for (name, port, peer) in [("alice", base, base + 1), ("bob", base + 1, base)] {
            nodes.append(
                try parley.startNode(
                    name, listen: "127.0.0.1:\(port)", options: ["--peer", "127.0.0.1:\(peer)", "--log-level", "trace"])
            )
        }
        try parley.client("alice", ["contacts", "add", "\(parley.workspace)/keys/bob.pub", "--name", "bob"])
        try parley.client("bob", ["contacts", "add", "\(parley.workspace)/keys/alice.pub", "--name", "alice"])

        // When alice sends a secret in a chat with a telling title, bob answers, and alice asks a poll question
        let (title, secret, answer, question) = (
            "Operation Nightjar", "the vault code is 7-4-1-9", "noted: 7-4-1-9", "Move at dawn?"
        )
        let chat = try parley.client("alice", ["chat", "create", title, "--member", "bob"])
        try parley.client("alice", ["send", chat, secret])
        #expect(parley.eventually("bob", ["messages", chat, "--json"]) { $0.contains(secret) })
        try parley.client("bob", ["send", chat, answer])
        _ = try parley.client("alice", ["poll", "create", chat, question])
        #expect(parley.eventually("alice", ["messages", chat, "--json"]) { $0.contains(answer) })
        #expect(parley.eventually("bob", ["messages", chat, "--json"]) { $0.contains(question) })
        nodes.forEach { $0.terminateAndWait() }

        // Then both logs traced the traffic (so the check below looks at real output)
        let logs = try ["alice", "bob"].map {
            try String(contentsOfFile: "\(parley.workspace)/\($0).log", encoding: .utf8)
        }
        for log in logs {
            #expect(
                log.contains(" trace ") && log.contains("stored messages"), "the log traced nothing: \(log.prefix(500))"
            )
        }
        // and neither holds any text, the title, the question, or either secret key (hex, any case)
        let seeds = try ["alice", "bob"].map { name in
            try String(contentsOfFile: "\(parley.workspace)/keys/\(name).key", encoding: .utf8).split(separator: " ")[1]
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(seeds.allSatisfy { $0.count == 64 })
        for (name, log) in zip(["alice", "bob"], logs) {
            for needle in [secret, answer, title, question, "7-4-1-9"] + seeds + seeds.map({ $0.uppercased() }) {
                #expect(!log.contains(needle), "\(name)'s log holds '\(needle)'")
            }
        }
    }

    @Test func theControlSocketIsOwnerOnlyAndANewDataDirectoryPrivate() throws {
        // Given a node started on a data directory that does not exist yet
        let parley = try ParleyBinary()
        _ = try parley.keygen("alice")
        let node = try parley.startNode("alice", port: Ports.base(), peers: [])
        defer { node.terminateAndWait() }

        // Then its control socket is 0600 and the directory it made is 0700
        var info = stat()
        #expect(stat(parley.data("alice") + "/control.sock", &info) == 0)
        #expect(info.st_mode & S_IFMT == S_IFSOCK)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(stat(parley.data("alice"), &info) == 0)
        #expect(info.st_mode & 0o777 == 0o700)
    }

    @Test(arguments: [0o640, 0o604, 0o644, 0o660, 0o606, 0o666] as [mode_t])
    func aNodeRefusesASecretKeyOthersCanRead(_ mode: mode_t) throws {
        // Given a key file that group or others can read
        let parley = try ParleyBinary()
        _ = try parley.keygen("dave")
        chmod("\(parley.workspace)/keys/dave.key", mode)

        // When a node is started with it
        let run = try parley.runBounded([
            "node", "--key", "\(parley.workspace)/keys/dave.key", "--data", parley.data("dave"), "--listen",
            "127.0.0.1:0",
        ])

        // Then it refuses at once, in one line that says how to fix it, and creates nothing
        #expect(run.status != nil && run.status != 0)
        #expect(run.stderr.split(separator: "\n").count == 1 && run.stderr.contains("chmod 600"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: parley.data("dave")))
    }

    enum Damage: String, CaseIterable, CustomTestStringConvertible {
        case notSQLite, truncated, newerSchema, wireProtocolOne
        var testDescription: String { rawValue }
    }

    @Test(arguments: Damage.allCases)
    func aNodeRefusesADamagedStoreInOneLineAndLeavesItUntouched(_ damage: Damage) async throws {
        // Given a data directory whose store is damaged, or was written by a newer Parley
        let parley = try ParleyBinary()
        _ = try parley.keygen("erin")
        try FileManager.default.createDirectory(atPath: parley.data("erin"), withIntermediateDirectories: true)
        let path = parley.data("erin") + "/parley.sqlite"
        let (expected, newer) = try await Self.damage(path, damage)
        // (never read a file SQLite holds open in this process: closing the descriptor drops SQLite's locks)
        let before = newer == nil ? try Data(contentsOf: URL(fileURLWithPath: path)) : Data()

        // When a node is started on it
        let run = try parley.runBounded([
            "node", "--key", "\(parley.workspace)/keys/erin.key", "--data", parley.data("erin"), "--listen",
            "127.0.0.1:0",
        ])

        // Then it exits non-zero with one clear line, and the store is as it was
        #expect(run.status != nil && run.status != 0, "the node did not refuse the store")
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        #expect(run.stderr.contains(expected), "\(run.stderr)")
        if let newer {
            // (SQLite's own bookkeeping may touch a valid file on open; the data must be intact)
            if damage == .wireProtocolOne {
                // The refused migration changed nothing: the rows still carry version 1
                try await newer.executeUnchecked("UPDATE chats SET invite = CAST(X'02' || substr(invite, 2) AS BLOB)")
                try await newer.executeUnchecked(
                    "UPDATE messages SET encoded = CAST(X'02' || substr(encoded, 2) AS BLOB)")
            } else {
                try await newer.executeUnchecked("DELETE FROM grdb_migrations WHERE identifier = 'v9-future'")
            }
            #expect(try MessageStore.open(path: path).chats().first?.messageCount == 3)
        } else {
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        }
        #expect(!FileManager.default.fileExists(atPath: parley.data("erin") + "/control.sock"))
    }

    /// Makes the damaged store; returns what the node's error must say, and for a newer schema the
    /// store still open, to undo the damage and check the data afterwards.
    static func damage(_ path: String, _ damage: Damage) async throws -> (String, MessageStore?) {
        switch damage {
        case .notSQLite:
            try Data(String(repeating: "not a database\n", count: 400).utf8).write(to: URL(fileURLWithPath: path))
            return ("is not a Parley database", nil)
        case .truncated:
            try await fill(path, messages: 300)
            let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
            let handle = try #require(FileHandle(forWritingAtPath: path))
            try handle.truncate(atOffset: UInt64(size / 3))
            try handle.close()
            return ("is not a Parley database (not SQLite, or corrupt)", nil)
        case .newerSchema:
            let store = try await fill(path, messages: 3)
            try await store.executeUnchecked("INSERT INTO grdb_migrations (identifier) VALUES ('v9-future')")
            return ("was written by a newer Parley (schema v9-future); upgrade Parley", store)
        case .wireProtocolOne:
            // A store as Parley 0.1 left it: every object of wire protocol 1, before the v8 migration
            let store = try await fill(path, messages: 3)
            try await store.executeUnchecked("UPDATE chats SET invite = CAST(X'01' || substr(invite, 2) AS BLOB)")
            try await store.executeUnchecked("UPDATE messages SET encoded = CAST(X'01' || substr(encoded, 2) AS BLOB)")
            try await store.executeUnchecked("DELETE FROM grdb_migrations WHERE identifier = 'v8-wire-protocol-chains'")
            try await store.executeUnchecked("CREATE INDEX messages_by_lamport ON messages (chat_id, lamport)")
            try await store.executeUnchecked("CREATE INDEX messages_by_author_state ON messages (author, state)")
            try await store.executeUnchecked("DROP INDEX messages_awaiting_acks")
            return ("holds chats of wire protocol 1, which this Parley (wire protocol 2) and its peers refuse", store)
        }
    }

    /// A store with one chat and `messages` messages in it.
    @discardableResult
    static func fill(_ path: String, messages: Int) async throws -> MessageStore {
        let store = try MessageStore.open(path: path)
        let author = try Identity.generate()
        let invite = try ChatInvite.create(by: author, title: "History", members: [], createdAtMillis: 0)
        _ = try await store.saveChat(invite, joinedAtMillis: 0)
        let all = try (1...messages).map { sequence in
            try MessageDraft(
                chat: invite.id, author: author.publicKey, sequence: UInt64(sequence), lamport: UInt64(sequence),
                timestampMillis: 0, tag: .text, content: Array(String(repeating: "x", count: 400).utf8)
            ).signed(by: author)
        }
        _ = try await store.insert(all, receivedAtMillis: 0, ownAuthor: author.publicKey)
        return store
    }
}
