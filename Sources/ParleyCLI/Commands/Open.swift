import ArgumentParser
import ParleyTransport
import Foundation
import ParleyNode

struct Open: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Chat interactively: messages and polls appear live.",
        discussion: "Type text to send it. Commands: /poll QUESTION [| OPTION | OPTION…], /vote POLL up|down|OPTION…, /unvote POLL [OPTION], /answer POLL TEXT, /suggest POLL TEXT, /close POLL, /results POLL, /react MESSAGE TYPE, /unreact MESSAGE TYPE, /quit.")

    @Argument(help: "The chat (id prefix or title).")
    var chat: String

    @OptionGroup var options: ClientOptions

    func run() async throws {
        let watcher = try await options.client()
        try await watcher.connection.send(try ControlJSON.encode(ControlRequest.watch(chat: chat)))
        show("chat \(chat): type a message, or /poll QUESTION [| OPTION | …], /vote POLL up|down|OPTION…, /unvote, /answer, /suggest, /close, /results POLL, /react, /unreact MESSAGE TYPE, /quit")
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
            if let reactions = event.reactions { show(Render.reactionGroups(reactions)) }
            if let typing = event.typing.flatMap(Render.typing) { show(typing) } // nothing when it stops
            if event.message == nil, event.poll == nil, event.reactions == nil, event.typing == nil,
               let failure = try? ControlJSON.decode(ControlResponse<String>.self, from: line), let error = failure.error {
                throw CLIError(error)
            }
        }
        throw CLIError("the node closed the connection")
    }

    private func readCommands() async throws {
        for await line in StandardInput.lines() {
            let text = line.trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty else { continue }
            if text == "/quit" { return }
            do { try await execute(text) } catch { show("error: \(error)") }
        }
    }

    private func execute(_ text: String) async throws {
        let words = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        /// Everything after the command and its first `skip` words.
        func rest(after skip: Int) -> String {
            words.dropFirst(1 + skip).joined(separator: " ")
        }
        let request: ControlRequest
        switch words[0] {
        case "/poll":
            // "/poll QUESTION" is yes/no; "/poll QUESTION | OPTION | OPTION…" has options.
            let parts = rest(after: 0).split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let question = parts.first, !question.isEmpty else { throw CLIError("usage: /poll QUESTION [| OPTION | OPTION…]") }
            request = .pollCreate(chat: chat, question: question, options: parts.count > 1 ? Array(parts.dropFirst()) : nil)
        case "/vote":
            guard words.count >= 3 else { throw CLIError("usage: /vote POLL up|down|OPTION…") }
            request = .pollVote(chat: chat, poll: words[1], choices: Array(words.dropFirst(2)))
        case "/unvote":
            guard (2...3).contains(words.count) else { throw CLIError("usage: /unvote POLL [OPTION]") }
            request = .pollUnvote(chat: chat, poll: words[1], option: words.count == 3 ? words[2] : nil)
        case "/answer", "/suggest":
            guard words.count >= 3 else { throw CLIError("usage: \(words[0]) POLL TEXT") }
            request = words[0] == "/answer"
                ? .pollAnswer(chat: chat, poll: words[1], text: rest(after: 1)) : .pollSuggest(chat: chat, poll: words[1], text: rest(after: 1))
        case "/close":
            guard words.count == 2 else { throw CLIError("usage: /close POLL") }
            request = .pollClose(chat: chat, poll: words[1])
        case "/results":
            guard words.count == 2 else { throw CLIError("usage: /results POLL") }
            show(Render.poll(try await ControlClient.callOnce(.pollResults(chat: chat, poll: words[1]), options: options, as: PollResultsView.self)))
            return
        case "/react", "/unreact":
            guard words.count >= 3 else { throw CLIError("usage: \(words[0]) MESSAGE TYPE") }
            request = words[0] == "/react"
                ? .react(chat: chat, message: words[1], type: rest(after: 1)) : .unreact(chat: chat, message: words[1], type: rest(after: 1))
        default:
            guard !text.hasPrefix("/") else {
                throw CLIError("unknown command \(words[0]); try /poll, /vote, /unvote, /answer, /suggest, /close, /results, /react, /unreact, /quit")
            }
            request = .send(chat: chat, text: text, tag: nil, refs: [])
        }
        _ = try await ControlClient.callOnce(request, options: options, as: MessageView.self)
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
