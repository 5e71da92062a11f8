import ArgumentParser
import ParleyControlSocket
import Foundation
import ParleyTerminal
import ParleyAPI

struct Open: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Chat interactively: messages and polls appear live (full screen on a terminal).",
        discussion: """
            Type text to send it, or a command:
            \(SlashCommand.helpLines)
            \(SlashCommand.idHint)
            For a stream of JSON lines, use `parley watch CHAT --json`.
            """)

    @Argument(help: "The chat (id prefix or title).")
    var chat: String

    @Flag(name: .long, help: "Print lines even on a terminal (the default when standard input or output is not one).")
    var line = false

    // A conversation, not a feed: no --json (a stream of JSON lines is what `watch --json` prints).
    @OptionGroup var options: NodeOptions

    func run() async throws {
        if !line, isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 {
            try await FullScreen(chat: chat, options: options).run()
            return
        }
        let watcher = try await options.client()
        try await watcher.connection.send(try APIJSON.encode(APIRequest.watch(chat: chat)))
        show("chat \(chat): type a message, or \(SlashCommand.help)")
        let shown = ShownMessages()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await showEvents(from: watcher, shown: shown) }
            group.addTask { try await readCommands(shown: shown) }
            _ = try await group.next() // input ended (/quit, EOF) or the node went away
            group.cancelAll()
        }
        await watcher.close()
    }

    private func showEvents(from watcher: ControlClient, shown: ShownMessages) async throws {
        for try await line in watcher.connection.lines {
            let event = try WatchEvent.decodeLine(line)
            if let message = event.message { show(shown.lines(for: message)) }
            if let poll = event.poll {
                shown.note(poll)
                show(Render.poll(poll))
            }
            if let reactions = event.reactions { show(Render.reactionGroups(reactions)) }
            if let typing = event.typing.flatMap(Render.typing) { show(typing) } // nothing when it stops
        }
        throw CLIError("the node closed the connection")
    }

    private func readCommands(shown: ShownMessages) async throws {
        for await line in StandardInput.lines() {
            do {
                switch try SlashCommand.parse(line, chat: chat) {
                case nil: continue
                case .quit: return
                case let .post(request) where request.isVote:
                    let vote = try await ControlClient.callOnce(request, options: options, as: VoteView.self)
                    show(Done.vote(vote, request: request))
                case let .post(request):
                    let posted = try await ControlClient.callOnce(request, options: options, as: Posted.self)
                    if let done = Done.inChat(request, id: posted.id) { show(done) }
                case let .results(poll):
                    show(
                        Render.poll(
                            try await ControlClient.callOnce(
                                .pollResults(chat: chat, poll: poll), options: options, as: PollResultsView.self)))
                case .older:
                    try await showOlder(shown: shown)
                case let .amendment(command):
                    for line in try await showAmendment(command) { show(line) }
                case .reactToLatest:
                    // Here a lone word may as well be a mistyped id: lines are not one screen with a latest entry in view.
                    throw CLIError("name the message: /react MESSAGE TYPE (its id is printed before the author)")
                }
            } catch {
                show("error: \(error)")
            }
        }
    }
}

extension Open {
    /// Prints the page of shown messages before the oldest one printed so far, oldest first.
    private func showOlder(shown: ShownMessages) async throws {
        guard let before = shown.oldest else { return show("(no message shown yet to page back from)") }
        let request = APIRequest.messages(
            chat: chat, tag: nil, ref: nil, refTag: nil, limit: 20, before: before.id, shown: true)
        let page = try await ControlClient.callOnce(request, options: options, as: [MessageView].self)
        guard !page.isEmpty else { return show("(no older messages)") }
        show("-- \(page.count) older message(s) --")
        for message in page { show(shown.lines(for: message)) }
        show("-- end of older messages --")
    }
}

/// Writes a line to standard output at once, with one unbuffered write: `print` would wait in the
/// buffer of a piped stdout, and `fflush(nil)` would block on the stdin lock held by the reader thread.
private func show(_ text: String) {
    try? FileHandle.standardOutput.write(contentsOf: Data((SafeText.display(text) + "\n").utf8))
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
