import Foundation
import Testing

/// `parley send --file`, `parley files` and `parley files get` through the real binary, and a fetch
/// that a kill -9 stopped half way going on after the restart without fetching again what was on disk.
@Suite(.serialized, .processSuiteLimit)
struct FilesProcessTests {
    static func randomFile(_ path: String, bytes: Int) throws -> Data {
        let data = Data((0..<bytes).map { _ in UInt8.random(in: 0...255) })
        try data.write(to: URL(fileURLWithPath: path))
        return data
    }

    static func status(_ parley: ParleyBinary, _ name: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(try parley.client(name, ["status", "--json"]).utf8))
            as? [String: Any] ?? [:]
    }

    static func file(_ parley: ParleyBinary, _ name: String, chat: String, id: String) throws -> [String: Any] {
        let list = try JSONSerialization.jsonObject(
            with: Data(try parley.client(name, ["files", chat, "--json"]).utf8))
        return (list as? [[String: Any]] ?? []).first { ($0["id"] as? String) == id } ?? [:]
    }

    @Test("send --file, files and files get move a file whole; bad paths and unknown files are one clear line")
    func sendListAndGet() throws {
        let parley = try ParleyBinary()
        let processes = try MultiProcessTests().setUpThreeNodes(parley, base: Ports.base())
        defer { processes.forEach { $0.terminateAndWait() } }
        let chat = try parley.client("alice", ["chat", "create", "Files", "--member", "bob", "--member", "carol"])
        let original = try Self.randomFile("\(parley.workspace)/report.bin", bytes: 700_000)

        let sent = try parley.client(
            "alice", ["send", chat, "--file", "\(parley.workspace)/report.bin", "--caption", "Q3"])
        #expect(sent.hasPrefix("sent 📎 report.bin (684 KiB, application/octet-stream) (id "))
        let id = String(sent.split(separator: "id ").last!.dropLast())
        #expect(
            parley.eventually("bob", ["files", chat]) { $0.contains("report.bin") && $0.contains("[not fetched]") })

        let folder = "\(parley.workspace)/bob-saved"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let saved = try parley.client("bob", ["files", "get", chat, id, "--to", folder])
        #expect(saved == "saved 📎 report.bin (684 KiB, application/octet-stream) to \(folder)/report.bin")
        #expect(try Data(contentsOf: URL(fileURLWithPath: "\(folder)/report.bin")) == original)
        // A second copy gets a name of its own, never overwriting the first.
        let again = try parley.client("bob", ["files", "get", chat, id, "--to", folder])
        #expect(again.hasSuffix("\(folder)/report (2).bin"))
        #expect(try parley.client("bob", ["files", chat]).contains("[held]  from alice — Q3"))
        #expect(try parley.client("bob", ["messages", chat]).contains("📎 report.bin (684 KiB) — Q3 [held]"))

        // Carol is served by alice and bob both.
        _ = try parley.client("carol", ["files", "get", chat, id, "--to", parley.workspace])
        #expect((try Self.status(parley, "bob")["fileChunksServed"] as? Int ?? 0) > 0)

        let missing = try parley.runBounded([
            "send", chat, "--file", "/nonexistent/x.bin", "--data", parley.data("alice"),
        ])
        #expect(missing.status == 3 && missing.stderr.contains("no file /nonexistent/x.bin"))
        let folderSent = try parley.runBounded([
            "send", chat, "--file", parley.workspace, "--data", parley.data("alice"),
        ])
        #expect(folderSent.status == 2 && folderSent.stderr.contains("is not a regular file"))
        let unknown = try parley.runBounded(["files", "get", chat, "abcdef12", "--data", parley.data("bob")])
        #expect(unknown.status == 3)
        let both = try parley.runBounded(["send", chat, "hello", "--file", "x", "--data", parley.data("alice")])
        #expect(both.status == 64 && both.stderr.contains("--file sends files"))
    }

    @Test("a fetch stopped by kill -9 half way goes on after the restart and fetches only what was missing")
    func resumeAfterKill() throws {
        let parley = try ParleyBinary()
        for name in ["alice", "bob"] { _ = try parley.keygen(name) }
        let base = Ports.base()
        let alice = try parley.startNode("alice", port: base, peers: [base + 1])
        defer { alice.terminateAndWait() }
        var bob = try parley.startNode("bob", port: base + 1, peers: [base])
        defer { bob.terminateAndWait() }
        try parley.client("alice", ["contacts", "add", "\(parley.workspace)/keys/bob.pub", "--name", "bob"])
        try parley.client("bob", ["contacts", "add", "\(parley.workspace)/keys/alice.pub", "--name", "alice"])
        let chat = try parley.client("alice", ["chat", "create", "Big", "--member", "bob"])
        let original = try Self.randomFile("\(parley.workspace)/big.bin", bytes: 24 << 20)
        let sent = try parley.client("alice", ["send", chat, "--file", "\(parley.workspace)/big.bin", "--json"])
        let id = try #require(
            (try JSONSerialization.jsonObject(with: Data(sent.utf8)) as? [String: Any])?["id"] as? String)
        #expect(parley.eventually("bob", ["files", chat]) { $0.contains("big.bin") })
        let chunks = 384

        // When bob's node is killed once a third of the file is in
        #expect(try parley.client("bob", ["files", "get", chat, id, "--no-wait"]).hasPrefix("fetching 📎 big.bin"))
        var before = 0
        let deadline = Date().addingTimeInterval(60)
        while before < chunks / 3, Date() < deadline {
            before = try Self.file(parley, "bob", chat: chat, id: id)["heldChunks"] as? Int ?? 0
            Thread.sleep(forTimeInterval: 0.05)
        }
        kill(bob.processIdentifier, SIGKILL)
        bob.waitUntilExit()
        #expect(before >= chunks / 3 && before < chunks, "bob held \(before) of \(chunks) chunks when killed")

        // Then the restarted node goes on by itself from what was on disk
        bob = try parley.startNode("bob", port: base + 1, peers: [base])
        #expect(parley.eventually("bob", ["files", chat], seconds: 120) { $0.contains("[held]") })
        let fetched = try Self.status(parley, "bob")["fileChunksFetched"] as? Int ?? -1
        #expect(
            fetched > 0 && fetched <= chunks - before, "fetched \(fetched) after the restart; \(before) were on disk")
        _ = try parley.client("bob", ["files", "get", chat, id, "--to", parley.workspace + "/bob"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: parley.workspace + "/bob/big.bin")) == original)
    }
}
