import Foundation
import Testing

/// The README's tour, run exactly as written: what a new user pastes must work.
struct ReadmeTourTests {
    static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("README.md")

    /// The tour block: the first `sh` block after "## A short tour" that starts nodes.
    static func tour() throws -> String {
        let text = try String(contentsOf: readme, encoding: .utf8)
        let section = try #require(text.range(of: "## A short tour")).upperBound
        let blocks = text[section...].components(separatedBy: "```sh\n").dropFirst().compactMap { $0.components(separatedBy: "```").first }
        return try #require(blocks.first { $0.contains("parley node") }, "no tour block in README.md")
    }

    @Test func theReadmeTourRunsAsWrittenAndShowsOneTally() throws {
        // Given the tour block of the README, the debug `parley` first on the PATH and a scratch TMPDIR
        let tour = try Self.tour()
        let parley = try ParleyBinary()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        // The traps stop the tour's background nodes however the block ends; nothing else is added.
        process.arguments = ["-eu", "-o", "pipefail", "-c", "trap 'kill $(jobs -p) 2>/dev/null; wait' EXIT; trap 'exit 143' TERM\n" + tour]
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = URL(fileURLWithPath: ParleyBinary.path).deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["TMPDIR"] = parley.workspace
        environment.removeValue(forKey: "PARLEY_DATA")
        process.environment = environment
        let out = Pipe(), err = Pipe()
        (process.standardOutput, process.standardError) = (out, err)

        // When it runs (bounded: a tour that hangs fails)
        try process.run()
        let deadline = Date().addingTimeInterval(90)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        let finished = !process.isRunning
        process.terminateAndWait()
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)

        // Then every command succeeded, and the tally, the criteria query and the removal read as the README says
        #expect(finished && process.terminationStatus == 0, "the tour failed:\n\(output)\n\(errors)")
        #expect(output.contains("up 1  down 1") && output.contains("alice up") && output.contains("bob down"), "\(output)")
        #expect(output.contains("<PollVoteUp>: voted up"), "\(output)")
        #expect(output.contains("Lunch: alice, bob (epoch 1)"), "\(output)")
        #expect(!errors.contains("Error:"), "\(errors)")
    }
}
