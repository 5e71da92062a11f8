import Foundation
import Synchronization

/// A command driven like a terminal session (`parley open`): the test types lines into its standard
/// input and waits, for a bounded time, for what it prints (standard output and error, interleaved).
final class InteractiveProcess {
    private let process = Process()
    private let input = Pipe()
    private let output = Transcript()

    init(executable: String, arguments: [String]) throws {
        let printed = Pipe()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = printed
        process.standardError = printed
        try process.run()
        let reading = printed.fileHandleForReading, transcript = output
        Thread {
            while case let data = reading.availableData, !data.isEmpty { transcript.append(data) }
        }.start()
    }

    /// Everything printed so far.
    var transcript: String { output.text }

    /// Writes `line` and a newline to the command's standard input.
    func type(_ line: String) throws {
        try input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Waits until `condition` holds on the transcript; false if it still does not after `seconds`.
    func waitFor(seconds: Double = 10, _ condition: (String) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition(transcript) {
            guard Date() < deadline else { return false }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return true
    }

    /// The exit status, or nil if the command is still running after `seconds`.
    func waitForExit(seconds: Double = 10) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning {
            guard Date() < deadline else { return nil }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return process.terminationStatus
    }

    /// Ends the command if it is still running (SIGTERM, then SIGKILL after 5 s).
    func stop() { process.terminateAndWait() }
}

/// The output read so far, shared between the reading thread and the test.
private final class Transcript: Sendable {
    private let bytes = Mutex(Data())

    func append(_ data: Data) { bytes.withLock { $0.append(data) } }
    var text: String { String(decoding: bytes.withLock { $0 }, as: UTF8.self) }
}
