import Foundation
import ParleyCore
import ParleyAPI
import ParleyNode
import ParleyControlSocket

/// Starts a fresh node process over the large store (this executable's hidden `serve-node`), times it
/// until its control socket answers `status`, asks it for the poll's tally, lets its timers run (sync,
/// announce), and reads its peak resident set (VmHWM) from /proc.
struct NodeProcessProbe: Sendable {
    let startupSeconds: Double
    let peakRSSBytes: Int

    /// Long enough for the node's first sync rounds over the whole store.
    static let settle = Duration.seconds(3)

    static func measure(store: LargeStore) async throws -> NodeProcessProbe {
        let socket = "\(store.dataDirectory)/control.sock"
        try? FileManager.default.removeItem(atPath: socket)
        let child = Process()
        child.executableURL = URL(fileURLWithPath: try selfExecutable())
        child.arguments = ["serve-node", "--key", store.keyPath, "--data", store.dataDirectory, "--for", "60"]
        let clock = ContinuousClock()
        let start = clock.now
        try child.run()
        defer {
            if child.isRunning { child.terminate() }
            child.waitUntilExit()
        }

        var client: LineClient?
        for _ in 0..<6_000 where client == nil && child.isRunning { // at most 30 s
            if FileManager.default.fileExists(atPath: socket) { client = try? await LineClient.connect(path: socket) }
            if client == nil { try await Task.sleep(for: .milliseconds(5)) }
        }
        guard let client else { throw BenchError("the node process never opened its control socket") }
        _ = try await ask(client, .status)
        let startup = (clock.now - start).seconds

        let answer = try await ask(client, .pollResults(chat: store.chat.hex, poll: store.poll.hex))
        guard answer.contains("\"ok\":true") else { throw BenchError("the node process could not tally: \(answer)") }
        await client.close()
        try await Task.sleep(for: settle)
        guard child.isRunning else {
            throw BenchError("the node process exited early (status \(child.terminationStatus))")
        }
        let peak = try peakRSS(pid: child.processIdentifier)
        return NodeProcessProbe(startupSeconds: startup, peakRSSBytes: peak)
    }

    private static func ask(_ client: LineClient, _ request: APIRequest) async throws -> String {
        try await client.send(try APIJSON.encode(request))
        for try await line in client.lines { return line }
        throw BenchError("the node process closed its control socket")
    }

    /// VmHWM: the peak resident set size, in bytes.
    static func peakRSS(pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Int(line.split(whereSeparator: \.isWhitespace).dropFirst().first ?? "")
        else { throw BenchError("no VmHWM in /proc/\(pid)/status") }
        return kilobytes * 1024
    }

    static func selfExecutable() throws -> String {
        let path = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw BenchError("cannot find this executable")
        }
        return path
    }
}
