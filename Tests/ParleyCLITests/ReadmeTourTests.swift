import Foundation
import Testing

/// The README's tour and its browser block, run exactly as written: what a new user pastes must work.
/// The tour names fixed ports (7001-7003), so each run gets a network namespace of its own when the
/// system allows one (`unshare -rn`): it collides with nothing else on the machine, nor with the
/// other test here. Serialized, for when it runs on the host's loopback instead.
@Suite(.serialized)
struct ReadmeTourTests {
    static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("README.md")

    /// The first `sh` block after `heading` that contains `marker`.
    static func block(after heading: String, containing marker: String) throws -> String {
        let text = try String(contentsOf: readme, encoding: .utf8)
        let section = try #require(text.range(of: heading)).upperBound
        let blocks = text[section...].components(separatedBy: "```sh\n").dropFirst().compactMap {
            $0.components(separatedBy: "```").first
        }
        return try #require(
            blocks.first { $0.contains(marker) }, "no block with \(marker) after \(heading) in README.md")
    }

    static func tour() throws -> String { try block(after: "## A short tour", containing: "parley node") }
    static func browserBlock() throws -> String { try block(after: "## In a browser", containing: "parley web") }

    struct Run {
        /// False when the script was still running at the deadline (and was stopped).
        let finished: Bool
        let status: Int32
        let output: String
        let errors: String
    }

    /// `ip`, when `unshare -rn` can make a network namespace here: the script then brings its
    /// loopback up first.
    static let namespaceIP: String? = {
        guard let ip = NetworkNamespaces.ipTool, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else {
            return nil
        }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        probe.arguments = ["-rn", ip, "link", "set", "lo", "up"]
        (probe.standardOutput, probe.standardError) = (FileHandle.nullDevice, FileHandle.nullDevice)
        guard (try? probe.run()) != nil else { return nil }
        probe.waitUntilExit()
        return probe.terminationStatus == 0 ? ip : nil
    }()

    /// Runs `script` under `bash -eu -o pipefail`, with the debug `parley` first on the PATH and the
    /// workspace as TMPDIR, stopping it at `deadline` seconds if it has not ended by then. The traps
    /// stop the script's background jobs however it ends; nothing else is added.
    static func run(_ script: String, in parley: ParleyBinary, deadline seconds: TimeInterval = 90) throws -> Run {
        let traps = "trap 'kill $(jobs -p) 2>/dev/null; wait' EXIT; trap 'exit 143' TERM\n"
        let bash = ["/bin/bash", "-eu", "-o", "pipefail", "-c"]
        let process = Process()
        if let ip = namespaceIP {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
            process.arguments = ["-rn"] + bash + ["\(ip) link set lo up\n" + traps + script]
        } else {
            process.executableURL = URL(fileURLWithPath: bash[0])
            process.arguments = Array(bash.dropFirst()) + [traps + script]
        }
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] =
            URL(fileURLWithPath: ParleyBinary.path).deletingLastPathComponent().path + ":"
            + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["TMPDIR"] = parley.workspace
        environment.removeValue(forKey: "PARLEY_DATA")
        process.environment = environment
        process.currentDirectoryURL = URL(fileURLWithPath: parley.workspace)
        let out = Pipe(), err = Pipe()
        (process.standardOutput, process.standardError) = (out, err)
        try process.run()
        let end = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < end { Thread.sleep(forTimeInterval: 0.1) }
        let finished = !process.isRunning
        process.terminateAndWait()
        return Run(
            finished: finished, status: process.terminationStatus,
            output: String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self),
            errors: String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
    }

    @Test func theTourThenTheBrowserBlockRunAsWrittenShowingOneTallyBobOnlineAndALink() throws {
        // Given the tour block of the README followed by its browser block, pasted into one shell
        let parley = try ParleyBinary()

        // When it runs (bounded: a tour that hangs fails)
        let run = try Self.run(try Self.tour() + Self.browserBlock(), in: parley)

        // Then every command succeeded, and the tally, the criteria query and the removal read as the README says
        #expect(run.finished && run.status == 0, "the tour failed:\n\(run.output)\n\(run.errors)")
        #expect(
            run.output.contains("up 1  down 1") && run.output.contains("alice up") && run.output.contains("bob down"),
            "\(run.output)")
        #expect(run.output.contains("<PollVoteUp>: voted up"), "\(run.output)")
        #expect(run.output.contains("Lunch: alice, bob (epoch 1)"), "\(run.output)")
        // and the members screen shows bob, who has just voted, online
        #expect(run.output.split(separator: "\n").contains("bob  online"), "\(run.output)")
        // and what the nodes say goes to their logs, not into what the user asked for
        #expect(
            !run.output.contains("parley node ") && !run.errors.contains("parley node "), "\(run.output)\n\(run.errors)"
        )
        #expect(!run.errors.contains("Error:"), "\(run.errors)")
        // and the browser block's `parley web` printed a link to the node it started (nothing before it prints one)
        #expect(
            run.output.range(of: #"https?://127\.0\.0\.1:[0-9]+/"#, options: .regularExpression) != nil,
            "no link: \(run.output)")
    }

    @Test func aTourWhosePortIsTakenStopsWithinItsBoundAndSaysWhy() throws {
        // Given UDP 127.0.0.1:7001, alice's port in the tour, held by another program (which takes
        // SIGTERM back: a test process may hand its children a mask that blocks it, and the traps stop
        // jobs with it)
        let parley = try ParleyBinary()
        let squatter = """
            python3 -c 'import signal, socket, time; signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM}); signal.signal(signal.SIGTERM, signal.SIG_DFL); s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 7001)); print("held", flush=True); time.sleep(120)' >held &
            for _ in $(seq 100); do [ -s held ] && break; sleep 0.05; done; [ -s held ]

            """

        // When the tour runs
        let run = try Self.run(squatter + Self.tour(), in: parley, deadline: 60)

        // Then it ends by itself, failing, with one line that names alice's node and the port, rather than hanging
        #expect(run.finished, "the tour hung:\n\(run.output)\n\(run.errors)")
        #expect(run.status != 0)
        #expect(
            run.errors.contains("alice's node did not start") && run.errors.contains("127.0.0.1:7001"), "\(run.errors)")
    }
}
