import Foundation

/// A detached tmux session on its own server socket, running one shell command in a pane of a
/// fixed size: the test types with `send-keys` and reads the screen with `capture-pane`.
final class TmuxPane {
    /// tmux from PATH, or nil when it is not installed.
    static let executable: String? = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        .split(separator: ":").map { "\($0)/tmux" }.first { FileManager.default.isExecutableFile(atPath: $0) }

    private let tmux: String
    /// The server's socket, in the temporary directory rather than tmux's own, so `kill()` can remove it.
    private let socket = NSTemporaryDirectory() + "parley-tmux-\(UUID().uuidString.prefix(8))"

    init(command: String, width: Int = 80, height: Int = 24) throws {
        guard let tmux = Self.executable else {
            throw CommandFailed(arguments: ["tmux"], status: -1, stderr: "tmux is not installed")
        }
        self.tmux = tmux
        try run(["new-session", "-d", "-x", "\(width)", "-y", "\(height)", command])
    }

    /// The pane's visible text, one line per row; a line the terminal wrapped is joined back (-J),
    /// so a frame wider than the pane shows as a longer line.
    func capture() -> String { (try? run(["capture-pane", "-p", "-J"])) ?? "" }

    /// Types `text` literally, without pressing Enter.
    func type(_ text: String) throws { try run(["send-keys", "-l", text]) }

    /// Presses named keys: "Enter", "Tab", "PageUp", "C-c"…
    func press(_ keys: String...) throws { try run(["send-keys"] + keys) }

    /// Waits until `condition` holds on the screen; false if it still does not after `seconds`.
    func waitFor(seconds: Double = 20, _ condition: (String) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition(capture()) {
            guard Date() < deadline else { return false }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return true
    }

    /// Ends the session and its server (and with them the command, if still running).
    func kill() {
        _ = try? run(["kill-server"])
        try? FileManager.default.removeItem(atPath: socket)
    }

    /// Runs one tmux command and waits for it with `waitpid`. Not `Process`: it learns that a child
    /// exited when every copy of a descriptor it hands the child is closed, and the server that
    /// `new-session` forks keeps its copies (of pipes too), so it would wait for good.
    @discardableResult
    private func run(_ arguments: [String]) throws -> String {
        let base = "\(socket)-\(UUID().uuidString.prefix(8))"
        let (outPath, errPath) = (base + ".out", base + ".err")
        defer { [outPath, errPath].forEach { try? FileManager.default.removeItem(atPath: $0) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([tmux, "-S", socket, "-f", "/dev/null"] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        // The test process blocks signals on its threads; tmux and the pane's commands must not inherit that.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid = pid_t()
        let spawned = posix_spawn(&pid, tmux, &actions, &attributes, argv, environ)
        guard spawned == 0 else {
            throw CommandFailed(
                arguments: ["tmux"] + arguments, status: spawned, stderr: String(cString: strerror(spawned)))
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let output = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        // Exited normally with status 0: low 7 bits (the signal) clear, exit code in the next byte.
        guard status & 0x7F == 0, (status >> 8) & 0xFF == 0 else {
            let error = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
            throw CommandFailed(arguments: ["tmux"] + arguments, status: status, stderr: error)
        }
        return output
    }
}
