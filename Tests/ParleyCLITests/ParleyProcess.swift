import Foundation
import Testing

/// Runs the real `parley` binary: nodes in the background, client commands to completion.
struct ParleyBinary {
    static let path: String = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/parley").path
    }()

    let workspace: String

    init() throws {
        workspace = NSTemporaryDirectory() + "parley-cli-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: workspace + "/keys", withIntermediateDirectories: true)
    }

    /// Runs a command and returns its standard output; throws with its stderr on a non-zero exit.
    @discardableResult
    func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.path)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let error = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CommandFailed(arguments: arguments, status: process.terminationStatus, stderr: String(decoding: error, as: UTF8.self))
        }
        return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func keygen(_ name: String) throws -> String { try run(["keygen", name, "--dir", workspace + "/keys"]) }
    func data(_ name: String) -> String { workspace + "/" + name }

    /// Starts `parley node` and waits (at most 10 s) for its control socket.
    func startNode(_ name: String, port: Int, peers: [Int]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.path)
        process.arguments = ["node", "--key", "\(workspace)/keys/\(name).key", "--data", data(name), "--listen", "127.0.0.1:\(port)",
                             "--log-level", "warning"] + peers.flatMap { ["--peer", "127.0.0.1:\($0)"] }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        for _ in 0..<100 where !FileManager.default.fileExists(atPath: data(name) + "/control.sock") {
            Thread.sleep(forTimeInterval: 0.1)
        }
        return process
    }

    /// `parley ARGS --data DIR`
    func client(_ name: String, _ arguments: [String]) throws -> String { try run(arguments + ["--data", data(name)]) }

    /// Retries until `condition` holds on the command's output, at most `seconds`.
    func eventually(_ name: String, _ arguments: [String], seconds: Double = 20, _ condition: (String) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let output = try? client(name, arguments), condition(output) { return true }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return false
    }
}

struct CommandFailed: Error, CustomStringConvertible {
    let arguments: [String], status: Int32, stderr: String
    var description: String { "parley \(arguments.joined(separator: " ")) exited \(status): \(stderr)" }
}

/// Free UDP ports for one test, spread so parallel suites do not collide.
enum Ports {
    static func base() -> Int { 20_000 + Int.random(in: 0..<2_000) * 10 }
}
