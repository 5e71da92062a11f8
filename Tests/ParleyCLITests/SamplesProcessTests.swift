import Foundation
import Testing

/// The sample scripts: they run the `parley` they are given, keep everything in a temporary directory,
/// and pick free ports, so two of them run side by side (and beside the tests) without colliding.
struct SamplesProcessTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func twoSamplesRunAtOnceWithPARLEYSetBothPassWithoutBuildingOrWritingIntoTheCheckout() throws {
        // Given a `swift` first on the PATH that only records that it was called, and the checkout's keys
        let parley = try ParleyBinary()
        let fakeBin = parley.workspace + "/bin", calls = parley.workspace + "/swift-calls"
        try FileManager.default.createDirectory(atPath: fakeBin, withIntermediateDirectories: true)
        try "#!/bin/sh\necho \"swift $*\" >>\(calls)\nexit 1\n".write(
            toFile: fakeBin + "/swift", atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: fakeBin + "/swift")
        let keys = Self.root.appendingPathComponent("keys").path
        let keysBefore = Set(try FileManager.default.contentsOfDirectory(atPath: keys))

        // When two-peers.sh and poll-demo.sh run at the same time with PARLEY set (each bounded)
        var environment = ProcessInfo.processInfo.environment
        environment["PARLEY"] = ParleyBinary.path
        environment["PATH"] = fakeBin + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["TMPDIR"] = parley.workspace
        let samples = ["two-peers.sh", "poll-demo.sh"].map { name in
            let process = Process()
            process.executableURL = Self.root.appendingPathComponent("samples/\(name)")
            process.environment = environment
            let log = parley.workspace + "/\(name).log"
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            process.standardOutput = FileHandle(forWritingAtPath: log)
            process.standardError = process.standardOutput
            return (name: name, process: process, log: log)
        }
        for sample in samples { try sample.process.run() }
        let deadline = Date().addingTimeInterval(90)
        while samples.contains(where: { $0.process.isRunning }), Date() < deadline {
            Thread.sleep(forTimeInterval: 0.1)
        }

        // Then both pass, neither called swift, and neither left keys in the checkout or its scratch directory behind
        for sample in samples {
            let finished = !sample.process.isRunning
            sample.process.terminateAndWait()
            let log = (try? String(contentsOfFile: sample.log, encoding: .utf8)) ?? ""
            #expect(finished && sample.process.terminationStatus == 0, "\(sample.name) failed:\n\(log)")
        }
        #expect(
            !FileManager.default.fileExists(atPath: calls),
            "a sample called swift: \((try? String(contentsOfFile: calls, encoding: .utf8)) ?? "")")
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: keys)) == keysBefore)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: parley.workspace).filter {
            $0.hasPrefix("parley-demo.")
        }
        #expect(leftovers.isEmpty, "left behind: \(leftovers)")
    }
}
