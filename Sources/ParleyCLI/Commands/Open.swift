import ArgumentParser
import ParleyTransport
import Foundation
import ParleyNode

struct Open: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Chat interactively: messages and polls appear live (full screen on a terminal).",
        discussion: "Type text to send it. Commands: /poll QUESTION [| OPTION | OPTION…], /vote POLL up|down|OPTION…, /unvote POLL [OPTION], /answer POLL TEXT, /suggest POLL TEXT, /close POLL, /results POLL, /quit.")

    @Argument(help: "The chat (id prefix or title).")
    var chat: String

    @Flag(name: .long, help: "Print lines even on a terminal (the default when standard input or output is not one).")
    var line = false

    @OptionGroup var options: ClientOptions

    func run() async throws {
        if !line, isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 {
            try await FullScreen(chat: chat, options: options).run()
            return
        }
        let watcher = try await options.client()
        try await watcher.connection.send(try ControlJSON.encode(ControlRequest.watch(chat: chat)))
        show("chat \(chat): type a message, or \(ChatCommand.help)")
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await showEvents(from: watcher) }
            group.addTask { try await readCommands() }
            _ = try await group.next() // input ended (/quit, EOF) or the node went away
            group.cancelAll()
        }
        await watcher.close()
    }

    private func showEvents(from watcher: ControlClient) async throws {
        for try await line in watcher.connection.lines {
            let event = try ControlJSON.decode(WatchEvent.self, from: line)
            if let message = event.message { show(Render.line(message)) }
            if let poll = event.poll { show(Render.poll(poll)) }
            if event.message == nil, event.poll == nil,
               let failure = try? ControlJSON.decode(ControlResponse<String>.self, from: line), let error = failure.error {
                throw CLIError(error)
            }
        }
        throw CLIError("the node closed the connection")
    }

    private func readCommands() async throws {
        for await line in StandardInput.lines() {
            do {
                switch try ChatCommand.parse(line, chat: chat) {
                case nil: continue
                case .quit: return
                case let .post(request): _ = try await ControlClient.callOnce(request, options: options, as: MessageView.self)
                case let .results(poll):
                    show(Render.poll(try await ControlClient.callOnce(.pollResults(chat: chat, poll: poll), options: options, as: PollResultsView.self)))
                }
            } catch {
                show("error: \(error)")
            }
        }
    }
}

/// Writes a line to standard output at once, with one unbuffered write: `print` would wait in the
/// buffer of a piped stdout, and `fflush(nil)` would block on the stdin lock held by the reader thread.
private func show(_ text: String) {
    try? FileHandle.standardOutput.write(contentsOf: Data((text + "\n").utf8))
}

/// Lines of standard input as an async sequence; a plain thread does the blocking reads.
enum StandardInput {
    static func lines() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream<String>.makeStream()
        let reader = Thread {
            while let line = readLine() { continuation.yield(line) }
            continuation.finish()
        }
        reader.start()
        return stream
    }
}
