import Foundation
import ParleyTerminal
#if canImport(Glibc)
    import Glibc
#endif

/// The controlling terminal in full-screen mode: raw input, the alternate screen, the cursor
/// hidden until a frame places it. `restore()` puts everything back; it is safe to call twice.
final class Terminal {
    private var saved = termios()
    private var active = false

    /// Switches standard input to raw mode and standard output to the alternate screen.
    func enter() throws {
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else {
            throw CLIError("cannot read the terminal settings: \(String(cString: strerror(errno)))")
        }
        var raw = saved
        cfmakeraw(&raw)
        // One byte is enough for a read to return; no timeout.
        withUnsafeMutableBytes(of: &raw.c_cc) { bytes in
            bytes[Int(VMIN)] = 1
            bytes[Int(VTIME)] = 0
        }
        // TCSADRAIN, not TCSAFLUSH: what was typed while the screen was starting (a busy machine takes
        // a while to open it) is kept and read as keys, not thrown away.
        guard tcsetattr(STDIN_FILENO, TCSADRAIN, &raw) == 0 else {
            throw CLIError("cannot switch the terminal to raw mode: \(String(cString: strerror(errno)))")
        }
        active = true
        Self.write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[H\u{1B}[2J")
    }

    /// Leaves the alternate screen, shows the cursor and restores the saved settings.
    func restore() {
        guard active else { return }
        active = false
        Self.write("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l")
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
    }

    /// The window size from `TIOCGWINSZ`, or 80×24 when the terminal does not say.
    static func size() -> (width: Int, height: Int) {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else {
            return (80, 24)
        }
        return (Int(size.ws_col), Int(size.ws_row))
    }

    /// Writes all of `text` to standard output, unbuffered.
    static func write(_ text: String) {
        guard !text.isEmpty else { return }
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if written < 0 {
                guard errno == EINTR else { return } // the terminal went away; nothing more to show
                continue
            }
            bytes = bytes.dropFirst(written)
        }
    }
}

/// Raw bytes from standard input, read on a plain thread (reads block). After bytes that end in a
/// lone ESC, an `idle` follows when nothing else arrives within 50 ms, so Escape can be told from
/// the start of an escape sequence.
enum TerminalInput {
    enum Chunk: Sendable {
        case bytes([UInt8])
        case idle
    }

    static func chunks() -> AsyncStream<Chunk> {
        let (stream, continuation) = AsyncStream<Chunk>.makeStream()
        let reader = Thread {
            var buffer = [UInt8](repeating: 0, count: 4_096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                continuation.yield(.bytes(Array(buffer[0..<count])))
                if buffer[count - 1] == 0x1B {
                    var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
                    if poll(&descriptor, 1, 50) == 0 { continuation.yield(.idle) }
                }
            }
            continuation.finish()
        }
        reader.start()
        return stream
    }
}

/// SIGWINCH, SIGINT, SIGTERM and SIGHUP, handed to `received` until the task is cancelled, so the
/// screen redraws on a resize and restores the terminal before exiting on the others.
enum TerminalSignals {
    static func forward(_ received: (Int32) -> Void) async {
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        let sources = [SIGWINCH, SIGINT, SIGTERM, SIGHUP].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number)
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
        await withTaskCancellationHandler {
            for await number in stream { received(number) }
        } onCancel: {
            continuation.finish()
        }
        sources.forEach { $0.cancel() }
    }
}
