import Foundation
import Testing

/// What `packaging/install.sh` installs besides the binary: the systemd user unit for `parley node`,
/// checked by systemd itself, and the shell completions the binary generates.
@Suite(.processSuiteLimit)
struct PackagingTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let analyze = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Runs `executable ARGUMENTS` to completion: its exit status and its stdout and stderr together.
    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> (
        status: Int32, output: String
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    /// `systemd-analyze verify --user` on `unit` (named parley-node.service in a scratch directory),
    /// with its own runtime directory: a user manager needs one, and a test runs without a login session.
    static func verify(_ unit: String) throws -> (status: Int32, output: String) {
        let scratch = NSTemporaryDirectory() + "parley-unit-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(
            atPath: scratch + "/runtime", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let path = scratch + "/parley-node.service"
        try unit.write(toFile: path, atomically: true, encoding: .utf8)
        // --man=no: the Documentation= page is installed with the unit, not here.
        return try run(
            try #require(analyze), ["verify", "--user", "--man=no", path],
            environment: ["XDG_RUNTIME_DIR": scratch + "/runtime"])
    }

    @Test(.enabled(if: analyze != nil, "systemd-analyze is not installed (Tests/run.sh installs systemd)"))
    func theSystemdUserUnitForTheNodeVerifiesAndABrokenOneDoesNot() throws {
        // Given the unit as install.sh installs it: its ExecStart pointing at the installed binary
        let shipped = try String(
            contentsOf: Self.root.appendingPathComponent("packaging/parley-node.service"), encoding: .utf8)
        #expect(shipped.contains("\nExecStart=/usr/local/bin/parley node "), "install.sh rewrites this path")
        let installed = shipped.replacingOccurrences(of: "/usr/local/bin/parley", with: ParleyBinary.path)

        // Then systemd verifies it without a word
        let verified = try Self.verify(installed)
        #expect(verified.status == 0 && verified.output.isEmpty, "\(verified.output)")

        // and the same check refuses the unit with its ExecStart misspelt
        let broken = try Self.verify(installed.replacingOccurrences(of: "\nExecStart=", with: "\nExecStrat="))
        #expect(broken.status != 0 && broken.output.contains("ExecStrat"), "\(broken.output)")
    }

    @Test func theBinaryWritesCompletionsForBashZshAndFish() throws {
        let parley = try ParleyBinary()
        for shell in ["bash", "zsh", "fish"] {
            let script = try parley.run(["--generate-completion-script", shell])
            // every subcommand is offered
            #expect(["send", "poll", "messages", "open", "node"].allSatisfy(script.contains), "\(shell)")
        }
        // and the bash script parses
        let bash = NSTemporaryDirectory() + "parley-completion-\(UUID().uuidString.prefix(8)).bash"
        try parley.run(["--generate-completion-script", "bash"]).write(toFile: bash, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: bash) }
        let parsed = try Self.run("/bin/bash", ["-n", bash])
        #expect(parsed.status == 0, "\(parsed.output)")
    }
}
