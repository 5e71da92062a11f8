import Foundation
import Synchronization
import Testing

/// Runs the real `parley` binary: nodes in the background, client commands to completion.
/// Its workspace (keys, stores, logs) is removed when the last reference goes away.
final class ParleyBinary: Sendable {
    /// `.build/debug/parley`, or `$PARLEY_BIN` (the long reliability runs use a release build).
    static let path: String = {
        if let path = ProcessInfo.processInfo.environment["PARLEY_BIN"], !path.isEmpty { return path }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/parley").path
    }()

    let workspace: String

    init() throws {
        workspace = NSTemporaryDirectory() + "parley-cli-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: workspace + "/keys", withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: workspace) }

    /// Runs a command and returns its standard output; throws with its stderr on a non-zero exit.
    @discardableResult
    func run(_ arguments: [String]) throws -> String {
        let (process, out, err) = try launch(arguments)
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let error = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CommandFailed(
                arguments: arguments, status: process.terminationStatus, stderr: String(decoding: error, as: UTF8.self))
        }
        return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs a command that is expected to exit by itself, killing it after `seconds` if it does not.
    func runBounded(_ arguments: [String], seconds: Double = 20) throws -> (
        status: Int32?, stdout: String, stderr: String
    ) {
        let (process, out, err) = try launch(arguments)
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        let exited = !process.isRunning
        process.terminateAndWait()
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let error = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (exited ? process.terminationStatus : nil, output, error)
    }

    /// Starts `parley ARGUMENTS` with its standard output and error on pipes.
    private func launch(_ arguments: [String]) throws -> (Process, out: Pipe, err: Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.path)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        return (process, out, err)
    }

    func keygen(_ name: String) throws -> String { try run(["keygen", name, "--dir", workspace + "/keys"]) }
    func data(_ name: String) -> String { workspace + "/" + name }

    /// Starts `parley node` on 127.0.0.1 and waits (at most 10 s) for its control socket.
    func startNode(_ name: String, port: Int, peers: [Int]) throws -> Process {
        try startNode(name, listen: "127.0.0.1:\(port)", options: peers.flatMap { ["--peer", "127.0.0.1:\($0)"] })
    }

    /// Starts `parley node`, through `launcher` when given (e.g. `ip netns exec NS`), and waits at most
    /// 10 s for its control socket; throws with the node's log if it does not come up.
    func startNode(_ name: String, listen: String, options: [String], launcher: [String] = []) throws -> Process {
        let log = "\(workspace)/\(name).log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let process = Process()
        let command =
            launcher + [
                Self.path, "node", "--key", "\(workspace)/keys/\(name).key", "--data", data(name),
                "--listen", listen, "--log-level", "warning",
            ] + options
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: log)
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: data(name) + "/control.sock") {
            guard process.isRunning, Date() < deadline else {
                process.terminateAndWait()
                let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                throw CommandFailed(
                    arguments: Array(command.dropFirst(launcher.count + 1)), status: process.terminationStatus,
                    stderr: output)
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return process
    }

    /// `parley ARGS --data DIR`
    @discardableResult
    func client(_ name: String, _ arguments: [String]) throws -> String { try run(arguments + ["--data", data(name)]) }

    /// Retries until `condition` holds on the command's output, at most `seconds`.
    func eventually(_ name: String, _ arguments: [String], seconds: Double = 20, _ condition: (String) -> Bool) -> Bool
    {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let output = try? client(name, arguments), condition(output) { return true }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return false
    }
}

extension Process {
    /// Sends SIGTERM, then SIGKILL if the process is still running 5 s later; returns once it has exited.
    func terminateAndWait() {
        guard isRunning else { return }
        terminate()
        let deadline = Date().addingTimeInterval(5)
        while isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if isRunning { kill(processIdentifier, SIGKILL) }
        waitUntilExit()
    }
}

struct CommandFailed: Error, CustomStringConvertible {
    let arguments: [String], status: Int32, stderr: String
    var description: String { "parley \(arguments.joined(separator: " ")) exited \(status): \(stderr)" }
}

/// UDP ports for one test: ten per call, distinct within this test process (parallel suites never
/// share a block), starting at a random block so two test processes rarely meet, and below the
/// kernel's ephemeral range (32768 and up on Linux), where client sockets would take them.
enum Ports {
    private static let blocks = 1_200
    private static let next = Mutex(Int.random(in: 0..<blocks))

    static func base() -> Int {
        next.withLock { block in
            defer { block = (block + 1) % blocks }
            return 20_000 + block * 10
        }
    }
}
