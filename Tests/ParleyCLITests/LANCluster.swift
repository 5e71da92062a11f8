import Foundation
import Synchronization
import Testing

/// Real `parley node` processes, one per host of a `LANTestBed`, started with `--discover` and no
/// `--peer`, each knowing the others only as contacts; driven through their control sockets.
final class LANCluster: Sendable {
    let bed: LANTestBed
    let parley: ParleyBinary
    private let nodes = Mutex<[String: Process]>([:])
    var names: [String] { bed.hosts.map(\.name) }

    init(hosts: [String] = ["alice", "bob", "carol"]) throws {
        bed = try LANTestBed.make(hosts: hosts)
        do {
            parley = try ParleyBinary()
        } catch {
            bed.remove()
            throw error
        }
        do {
            for name in hosts { _ = try parley.keygen(name) }
            for name in hosts { try start(name) }
            for me in hosts {
                for other in hosts where other != me {
                    try parley.client(
                        me, ["contacts", "add", "\(parley.workspace)/keys/\(other).pub", "--name", other])
                }
            }
        } catch {
            stop()
            throw error
        }
    }

    /// Stops every node, then removes the namespaces. Safe to call twice.
    func stop() {
        let running = nodes.withLock { nodes in
            defer { nodes = [:] }
            return Array(nodes.values)
        }
        running.forEach { $0.terminateAndWait() }
        bed.remove()
    }

    /// Starts (or restarts, on the same data) the node of `name` on its host.
    func start(_ name: String) throws {
        try? FileManager.default.removeItem(atPath: parley.data(name) + "/control.sock")
        let host = bed.host(name)
        let process = try parley.startNode(
            name, listen: "\(host.address):7001", options: ["--discover"], launcher: bed.launcher(for: host))
        nodes.withLock { $0[name] = process }
    }

    /// kill -9: no chance to flush or say goodbye.
    func kill9(_ name: String) {
        guard let process = nodes.withLock({ $0.removeValue(forKey: name) }) else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    func connect(_ name: String) throws -> ControlConnection { try ControlConnection(dataDirectory: parley.data(name)) }

    /// Creates a chat of every host, made by the first, and waits until everyone has joined it.
    func makeChat(_ title: String) throws -> String {
        let chat = try parley.client(
            names[0], ["chat", "create", title] + names.dropFirst().flatMap { ["--member", $0] })
        let joined = eventually(seconds: 60) {
            try self.names.allSatisfy { try self.messageCount(chat, on: $0) != nil }
        }
        try #require(joined, "not every node joined the chat")
        return chat
    }

    /// The chat's message count on a node, or nil when the node does not hold the chat.
    func messageCount(_ chat: String, on name: String) throws -> Int? {
        let chats = try connect(name).call(Control.chatList) as? [[String: Any]] ?? []
        return chats.first { $0["id"] as? String == chat }?["messageCount"] as? Int
    }

    /// Every message of the chat on a node.
    func messages(_ chat: String, on name: String) throws -> [StoredMessageSummary] {
        let list =
            try ControlConnection(dataDirectory: parley.data(name), timeout: 120).call(Control.messages(chat: chat))
            as? [[String: Any]] ?? []
        return list.map(StoredMessageSummary.init)
    }

    func status(of name: String) throws -> [String: Any] {
        try connect(name).call(Control.status) as? [String: Any] ?? [:]
    }

    func rejections(of name: String) throws -> [String: Int] {
        try status(of: name)["rejections"] as? [String: Int] ?? [:]
    }

    func datagramsOut() throws -> Int { try names.reduce(0) { $0 + (try status(of: $1)["datagramsOut"] as? Int ?? 0) } }

    func tally(_ chat: String, poll: String, on name: String) throws -> Tally {
        let result = try connect(name).call(Control.pollResults(chat: chat, poll: poll)) as? [String: Any] ?? [:]
        let voters = (result["voters"] as? [[String: Any]] ?? []).map { "\($0["id"] ?? "")=\($0["vote"] ?? "")" }
        return Tally(up: result["up"] as? Int ?? -1, down: result["down"] as? Int ?? -1, voters: voters.sorted())
    }

    /// Posts `texts` from `name`, pipelined on one connection; returns the ids the node acknowledged
    /// (durably stored), in order, and stops at the first failure (the node died, for instance).
    func post(_ texts: [String], chat: String, from name: String, afterEach: (Int) -> Void = { _ in }) -> [String] {
        guard let connection = try? connect(name) else { return [] }
        var ids: [String] = []
        for start in stride(from: 0, to: texts.count, by: 16) {
            let chunk = texts[start..<min(start + 16, texts.count)].map { Control.send(chat: chat, text: $0) }
            guard let answers = try? connection.pipeline(Array(chunk), window: 16) else { return ids }
            for answer in answers {
                guard case let .success(view) = answer, let id = (view as? [String: Any])?["id"] as? String else {
                    return ids
                }
                ids.append(id)
                afterEach(ids.count)
            }
        }
        return ids
    }

    /// Waits until every node holds `expected` messages in the chat (or, with nil, the same number);
    /// returns the seconds it took, or nil when `seconds` passed first.
    func waitForConvergence(_ chat: String, expected: Int? = nil, seconds: Double) -> Double? {
        let start = Date()
        let converged = eventually(seconds: seconds, every: 0.25) {
            let counts = try self.names.map { try self.messageCount(chat, on: $0) ?? -1 }
            guard Set(counts).count == 1 else { return false }
            guard let expected else {
                // No known total: equal counts and equal id sets.
                let sets = try self.names.map { Set(try self.messages(chat, on: $0).map(\.id)) }
                return Set(sets).count == 1
            }
            return counts[0] == expected
        }
        return converged ? Date().timeIntervalSince(start) : nil
    }

    /// Checks `condition` every `every` seconds for at most `seconds`; errors count as "not yet".
    func eventually(seconds: Double, every: Double = 0.1, _ condition: () throws -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            if (try? condition()) == true { return true }
            Thread.sleep(forTimeInterval: every)
        } while Date() < deadline
        return false
    }
}

/// One row of `messages --json`, as far as the reliability checks need it.
struct StoredMessageSummary: Hashable {
    let id: String, author: String, sequence: Int, text: String, tag: String, deliveredTo: Int

    init(_ json: [String: Any]) {
        id = json["id"] as? String ?? ""
        author = json["author"] as? String ?? ""
        sequence = json["sequence"] as? Int ?? -1
        text = json["text"] as? String ?? ""
        tag = json["tag"] as? String ?? ""
        deliveredTo = json["deliveredTo"] as? Int ?? -1
    }
}

struct Tally: Equatable, CustomStringConvertible {
    let up: Int, down: Int, voters: [String]
    var description: String { "up \(up) down \(down) (\(voters.count) voters)" }
}

/// Runs blocking bodies on their own threads (the test's cooperative pool has only as many threads
/// as cores) and returns their results in order.
func concurrently<T: Sendable>(_ bodies: [@Sendable () -> T]) -> [T] {
    let results = Mutex<[Int: T]>([:])
    let done = DispatchGroup()
    for (index, body) in bodies.enumerated() {
        done.enter()
        Thread.detachNewThread {
            let value = body()
            results.withLock { $0[index] = value }
            done.leave()
        }
    }
    done.wait()
    return results.withLock { results in bodies.indices.map { results[$0]! } }
}

/// Sizes and figures of the reliability runs: short by default (the test command), long with
/// `PARLEY_LONG=1` (Tests/reliability/run-long.sh), which also names a file to append figures to.
enum Reliability {
    static let environment = ProcessInfo.processInfo.environment
    static let long = environment["PARLEY_LONG"] == "1"
    /// Messages posted in total by the three nodes of the loss test.
    static let lossMessages = Int(environment["PARLEY_MESSAGES"] ?? "") ?? (long ? 10_000 : 300)
    /// Loss rates to run, in percent.
    static let lossPercents = (environment["PARLEY_LOSS"] ?? (long ? "10,30" : "30")).split(separator: ",").compactMap {
        Int($0)
    }
    /// Messages each of two nodes posts in the crash and partition tests.
    static let burst = long ? 2_000 : 150
    /// The longest a convergence may take before the test fails.
    static let convergenceSeconds: Double = long ? 1_800 : 180

    /// Prints `FIGURE name value` and appends it to `$PARLEY_FIGURES` when set.
    static func figure(_ name: String, _ value: String) {
        let line = "FIGURE \(name) \(value)\n"
        print(line, terminator: "")
        guard let path = environment["PARLEY_FIGURES"], !path.isEmpty else { return }
        if !FileManager.default.fileExists(atPath: path) {
            _ = FileManager.default.createFile(atPath: path, contents: nil)
        }
        if let handle = FileHandle(forWritingAtPath: path) {
            handle.seekToEndOfFile()
            handle.write(Data(line.utf8))
            try? handle.close()
        }
    }
}
