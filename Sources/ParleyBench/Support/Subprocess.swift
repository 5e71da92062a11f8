import Foundation

/// A helper program run to completion, its output kept: the web page's driver, the toxcore harness
/// and the compiler that builds it.
struct Subprocess {
    let status: Int32
    let output: String
    let errors: String

    /// Runs `arguments` through `/usr/bin/env` (so a bare name is looked up on the PATH). Standard
    /// error is read on a thread of its own: a child that fills one pipe while the other is read would
    /// otherwise never finish.
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Subprocess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let (out, err) = (Pipe(), Pipe())
        (process.standardOutput, process.standardError) = (out, err)
        try process.run()
        let errors = Reader(err.fileHandleForReading)
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return Subprocess(status: process.terminationStatus, output: output, errors: errors.text())
    }

    /// Whether `name` is a program on the PATH.
    static func exists(_ name: String) -> Bool {
        (try? run(["sh", "-c", "command -v \(name)"]).status == 0) ?? false
    }

    private final class Reader: @unchecked Sendable {
        // Written by the reading thread only, read after `done` is signalled.
        private var data = Data()
        private let done = DispatchSemaphore(value: 0)

        init(_ handle: FileHandle) {
            Thread.detachNewThread { [self] in
                data = handle.readDataToEndOfFile()
                done.signal()
            }
        }

        func text() -> String {
            done.wait()
            return String(decoding: data, as: UTF8.self)
        }
    }
}
