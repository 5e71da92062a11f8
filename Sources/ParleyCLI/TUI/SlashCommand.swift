import Foundation
import ParleyAPI
import ParleyCrypto

/// A line typed in `parley open` (line mode or full screen): text to send, or a slash command.
enum SlashCommand: Equatable {
    /// A request that posts a message (text, a reply, or a poll action) and answers with its view.
    case post(APIRequest)
    case results(poll: String)
    /// Show the page of messages before the oldest one shown.
    case older
    /// `/react TYPE` or `/unreact TYPE` with no message: on the latest message the full screen shows.
    case reactToLatest(type: String, remove: Bool)
    case quit
    /// An edit, deletion or pin command that is answered with something other than a posted message.
    case amendment(Amendment)

    /// Every slash command. The parser switches over these cases exhaustively and the help is built
    /// from them, so a command cannot be parsed without being listed, nor listed without being parsed.
    enum Name: String, CaseIterable {
        case poll, vote, unvote, answer, suggest, close, results, reply, react, unreact, older, quit
        case edit, delete, hide, pin, unpin, thread, back, edits, pins, search, mute, unmute, save

        var command: String { "/" + rawValue }

        /// The command with its arguments, as typed.
        var usage: String {
            switch self {
            case .poll: "/poll QUESTION [| OPTION | OPTION…]"
            case .vote: "/vote POLL up|down|OPTION…"
            case .unvote: "/unvote POLL [OPTION]"
            case .answer: "/answer POLL TEXT"
            case .suggest: "/suggest POLL TEXT"
            case .close: "/close POLL"
            case .results: "/results POLL"
            case .reply: "/reply MESSAGE TEXT"
            case .react: "/react [MESSAGE] TYPE"
            case .unreact: "/unreact [MESSAGE] TYPE"
            case .older: "/older"
            case .quit: "/quit"
            case .edit: "/edit MESSAGE TEXT"
            case .delete: "/delete MESSAGE [--for-me]"
            case .hide: "/hide MESSAGE"
            case .pin: "/pin MESSAGE"
            case .unpin: "/unpin MESSAGE"
            case .thread: "/thread MESSAGE"
            case .back: "/back"
            case .edits: "/edits MESSAGE"
            case .pins: "/pins"
            case .search: "/search WORDS"
            case .mute: "/mute"
            case .unmute: "/unmute"
            case .save: "/save FILE [FOLDER]"
            }
        }

        /// Short enough that a help line fits 80 columns.
        var summary: String {
            switch self {
            case .poll: "create a poll: yes/no, or with options"
            case .vote: "vote on a poll"
            case .unvote: "take back a vote (an option, or all)"
            case .answer: "answer a poll that takes answers"
            case .suggest: "suggest an option to a poll"
            case .close: "close your poll"
            case .results: "results: bars, voters, phase, your vote"
            case .reply: "reply to MESSAGE, quoting it"
            case .react: "react (full screen: latest if no MESSAGE)"
            case .unreact: "take back a reaction"
            case .older: "show the page before the oldest shown"
            case .quit: "leave"
            case .edit: "replace the text of your message"
            case .delete: "delete for everyone (--for-me: /hide)"
            case .hide: "hide a message here only; nothing is sent"
            case .pin: "pin a message for the chat"
            case .unpin: "unpin a message"
            case .thread: "a message and its replies"
            case .back: "from a thread back to the chat (or Esc)"
            case .edits: "a message's versions"
            case .pins: "every pinned message"
            case .search: "search this chat on this node only"
            case .mute: "mute this chat here (nothing is sent)"
            case .unmute: "unmute this chat"
            case .save: "fetch a file if needed and save it (default: here)"
            }
        }
    }

    /// One line per command, for `parley open --help`.
    static var helpLines: String {
        let width = Name.allCases.map(\.usage.count).max() ?? 0
        return Name.allCases.map { name in
            "  " + name.usage.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + name.summary
        }.joined(separator: "\n")
    }

    /// The commands on one line, for the line-mode greeting and the unknown-command error.
    static var help: String { Name.allCases.map(\.command).joined(separator: ", ") }

    /// Messages and polls are named by a prefix of their id, as the screen and the list show them.
    static let idHint = "MESSAGE and POLL: an id prefix, as shown before each entry."

    /// The command for `text` in `chat`; nil for a blank line. Throws a usage line for a malformed command.
    static func parse(_ line: String, chat: String) throws -> SlashCommand? {
        let text = line.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { return nil }
        let words = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard text.hasPrefix("/") else { return .post(.send(chat: chat, text: text, tag: nil, refs: [])) }
        guard let name = Name(rawValue: String(words[0].dropFirst())) else {
            throw CLIError("unknown command \(words[0]); try \(help)")
        }
        /// Everything after the command and its first `skip` words.
        func rest(after skip: Int) -> String {
            words.dropFirst(1 + skip).joined(separator: " ")
        }
        let usage = CLIError("usage: \(name.usage)")
        switch name {
        case .quit:
            guard words.count == 1 else { throw usage }
            return .quit
        case .poll:
            // "/poll QUESTION" is yes/no; "/poll QUESTION | OPTION | OPTION…" has options.
            let parts = rest(after: 0).split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let question = parts.first, !question.isEmpty else { throw usage }
            return .post(
                .pollCreate(chat: chat, question: question, options: parts.count > 1 ? Array(parts.dropFirst()) : nil))
        case .vote:
            guard words.count >= 3 else { throw usage }
            return .post(.pollVote(chat: chat, poll: words[1], choices: Array(words.dropFirst(2))))
        case .unvote:
            guard (2...3).contains(words.count) else { throw usage }
            return .post(.pollUnvote(chat: chat, poll: words[1], option: words.count == 3 ? words[2] : nil))
        case .answer:
            guard words.count >= 3 else { throw usage }
            return .post(.pollAnswer(chat: chat, poll: words[1], text: rest(after: 1)))
        case .suggest:
            guard words.count >= 3 else { throw usage }
            return .post(.pollSuggest(chat: chat, poll: words[1], text: rest(after: 1)))
        case .close:
            guard words.count == 2 else { throw usage }
            return .post(.pollClose(chat: chat, poll: words[1]))
        case .results:
            guard words.count == 2 else { throw usage }
            return .results(poll: words[1])
        case .reply:
            // The reference is exactly the message named: "MESSAGE:TAG" (what `send --ref` takes) is
            // refused, so a reply can never pose as a vote or a reaction.
            guard words.count >= 3 else { throw usage }
            guard Hex.isHexPrefix(words[1]) else {
                throw CLIError("'\(words[1])' is not a message id prefix; usage: \(name.usage)")
            }
            return .post(.send(chat: chat, text: rest(after: 1), tag: nil, refs: [words[1]]))
        case .react, .unreact:
            guard words.count >= 2 else { throw usage }
            if words.count == 2 { return .reactToLatest(type: words[1], remove: name == .unreact) }
            return .post(
                name == .react
                    ? .react(chat: chat, message: words[1], type: rest(after: 1))
                    : .unreact(chat: chat, message: words[1], type: rest(after: 1)))
        case .older:
            guard words.count == 1 else { throw usage }
            return .older
        case .edit, .delete, .hide, .pin, .unpin, .thread, .back, .edits, .pins:
            return try parseAmendment(name, words: words, chat: chat)
        case .search:
            guard words.count >= 2 else { throw usage }
            return .amendment(.search(text: rest(after: 0)))
        case .mute, .unmute:
            guard words.count == 1 else { throw usage }
            return .amendment(.mute(on: name == .mute))
        case .save:
            guard (2...3).contains(words.count), Hex.isHexPrefix(words[1]) else { throw usage }
            return .amendment(.save(file: words[1], folder: words.count == 3 ? words[2] : nil))
        }
    }
}
