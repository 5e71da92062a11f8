import Foundation
import ParleyAPI
import ParleyTerminal

/// What a command that posts says it did. A person reads a sentence ("sent to Lunch (id 3f2a9c01)");
/// a script that captures the output, `id=$(parley send …)`, reads the new message's full id alone;
/// under `--json` the whole view.
enum Done {
    /// Hex digits of the id in a sentence: as many as the full screen shows before each entry.
    static let idLength = 8

    /// The sentence for `request` having posted the message `id`; nil for a request that posts nothing.
    /// `namesChat`: whether to say which chat (not inside `parley open`, where it is the open one).
    static func sentence(_ request: APIRequest, id: String, namesChat: Bool = true) -> String? {
        let short = "(id \(id.prefix(idLength)))"
        func chatNamed(_ chat: String, _ word: String) -> String { namesChat ? " \(word) \(chat)" : "" }
        return switch request {
        case let .send(chat, _, tag, refs):
            if let reply = refs?.first, tag ?? "Text" == "Text" {
                "replied to \(reply)\(chatNamed(chat, "in")) \(short)"
            } else if let tag, tag != "Text" {
                "sent a \(tag) message\(chatNamed(chat, "to")) \(short)"
            } else {
                "sent\(chatNamed(chat, "to")) \(short)"
            }
        case let .chatCreate(title, members, kind):
            kind == "direct"
                ? "created a direct chat with \(members.joined(separator: ", ")) \(short)"
                : "created the chat \(title) \(short)"
        case let .pollCreate(chat, _, _, _, _, _, _, _, _, _, _): "posted a poll\(chatNamed(chat, "in")) \(short)"
        case let .pollVote(_, poll, choices, _): "voted \(choices.joined(separator: ", ")) on poll \(poll) \(short)"
        case let .pollUnvote(_, poll, option):
            "took back your vote\(option.map { " for \($0)" } ?? "") on poll \(poll) \(short)"
        case let .pollAnswer(_, poll, _): "answered poll \(poll) \(short)"
        case let .pollSuggest(_, poll, text): "suggested “\(text)” on poll \(poll) \(short)"
        case let .pollClose(_, poll): "closed poll \(poll) \(short)"
        case let .react(_, message, type, _, _): "reacted \(type) to \(message) \(short)"
        case let .unreact(_, message, type): "took back \(type) on \(message) \(short)"
        case let .edit(_, message, _): "edited \(message) \(short)"
        case let .delete(chat, message): "deleted \(message) for everyone\(chatNamed(chat, "in")) \(short)"
        case let .pin(_, message, pinned): "\(pinned ?? true ? "pinned" : "unpinned") \(message) \(short)"
        default: nil
        }
    }

    /// In `parley open`, what a slash command did; nothing for typed text, which shows in the chat itself.
    static func inChat(_ request: APIRequest, id: String) -> String? {
        if case let .send(_, _, _, refs) = request, refs?.isEmpty ?? true { return nil }
        return sentence(request, id: id, namesChat: false)
    }

    /// What a vote did, in any front end: the sentence, or where a secret ballot went.
    static func vote(_ vote: VoteView, request: APIRequest) -> String {
        if let ballot = vote.secretBallot { return Render.secretBallot(ballot, poll: vote.poll) }
        return sentence(request, id: vote.votedID) ?? vote.votedID
    }

    /// Prints what `request` did: its `view` under `--json`; on a terminal the sentence; else the id.
    static func report(_ request: APIRequest, id: String, view: some Encodable, json: Bool) throws {
        if json { return print(try APIJSON.encode(view)) }
        let sentence = isatty(STDOUT_FILENO) == 1 ? Self.sentence(request, id: id) : nil
        print(sentence.map(SafeText.display) ?? id)
    }
}

extension VoteView {
    /// The id a vote is shown by: its message's, or the poll's for a secret ballot, which has none.
    var votedID: String { message?.id ?? poll.id }
}

extension APIRequest {
    /// A vote is answered with the poll and what carried the vote (`VoteView`), not a posted message's id.
    var isVote: Bool { if case .pollVote = self { true } else { false } }
}
