import Foundation
import ParleyAPI
import ParleyNode

/// A line typed in `parley open` (line mode or full screen): text to send, or a slash command.
enum SlashCommand: Equatable {
    /// A request that posts a message (text, or a poll action) and answers with its `MessageView`.
    case post(APIRequest)
    case results(poll: String)
    /// Show the page of messages before the oldest one shown.
    case older
    /// `/react TYPE` or `/unreact TYPE` with no message: on the latest message shown (the full screen
    /// shows no ids to type).
    case reactToLatest(type: String, remove: Bool)
    case quit

    static let help = "/poll QUESTION [| OPTION | …], /vote POLL up|down|OPTION…, /unvote, /answer, /suggest, /close, /results POLL, /react [MESSAGE] TYPE, /unreact [MESSAGE] TYPE, /older, /quit"

    /// The command for `text` in `chat`; nil for a blank line. Throws a usage line for a malformed command.
    static func parse(_ line: String, chat: String) throws -> SlashCommand? {
        let text = line.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { return nil }
        let words = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        /// Everything after the command and its first `skip` words.
        func rest(after skip: Int) -> String {
            words.dropFirst(1 + skip).joined(separator: " ")
        }
        switch words[0] {
        case "/quit" where words.count == 1:
            return .quit
        case "/poll":
            // "/poll QUESTION" is yes/no; "/poll QUESTION | OPTION | OPTION…" has options.
            let parts = rest(after: 0).split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let question = parts.first, !question.isEmpty else { throw CLIError("usage: /poll QUESTION [| OPTION | OPTION…]") }
            return .post(.pollCreate(chat: chat, question: question, options: parts.count > 1 ? Array(parts.dropFirst()) : nil))
        case "/vote":
            guard words.count >= 3 else { throw CLIError("usage: /vote POLL up|down|OPTION…") }
            return .post(.pollVote(chat: chat, poll: words[1], choices: Array(words.dropFirst(2))))
        case "/unvote":
            guard (2...3).contains(words.count) else { throw CLIError("usage: /unvote POLL [OPTION]") }
            return .post(.pollUnvote(chat: chat, poll: words[1], option: words.count == 3 ? words[2] : nil))
        case "/answer", "/suggest":
            guard words.count >= 3 else { throw CLIError("usage: \(words[0]) POLL TEXT") }
            return .post(words[0] == "/answer"
                ? .pollAnswer(chat: chat, poll: words[1], text: rest(after: 1)) : .pollSuggest(chat: chat, poll: words[1], text: rest(after: 1)))
        case "/close":
            guard words.count == 2 else { throw CLIError("usage: /close POLL") }
            return .post(.pollClose(chat: chat, poll: words[1]))
        case "/results":
            guard words.count == 2 else { throw CLIError("usage: /results POLL") }
            return .results(poll: words[1])
        case "/react", "/unreact":
            guard words.count >= 2 else { throw CLIError("usage: \(words[0]) [MESSAGE] TYPE") }
            if words.count == 2 { return .reactToLatest(type: words[1], remove: words[0] == "/unreact") }
            return .post(words[0] == "/react"
                ? .react(chat: chat, message: words[1], type: rest(after: 1)) : .unreact(chat: chat, message: words[1], type: rest(after: 1)))
        case "/older" where words.count == 1:
            return .older
        default:
            guard !text.hasPrefix("/") else {
                throw CLIError("unknown command \(words[0]); try /poll, /vote, /unvote, /answer, /suggest, /close, /results, /react, /unreact, /older, /quit")
            }
            return .post(.send(chat: chat, text: text, tag: nil, refs: []))
        }
    }
}
