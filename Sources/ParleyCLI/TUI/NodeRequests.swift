import Foundation
import ParleyAPI

/// How the full screen asks for older messages and resolves the chat it was given.
enum NodeRequests {
    /// Messages per PageUp load.
    static let pageSize = 50

    /// The page of shown messages (text, links, custom, polls, member changes) older than `oldest`
    /// (the latest page without it): one indexed query per PageUp, however much is loaded already.
    static func olderMessages(chat: String, oldest: String?) -> APIRequest {
        .messages(chat: chat, tag: nil, ref: nil, refTag: nil, limit: pageSize, before: oldest, shown: true)
    }

    /// The chat `text` names, as the node resolves it: a unique id prefix, else a title (any case).
    static func resolve(_ text: String, in chats: [ChatView]) throws -> String {
        let lower = text.lowercased()
        let byID = chats.filter { $0.id.hasPrefix(lower) }
        if lower.allSatisfy(\.isHexDigit), byID.count == 1 { return byID[0].id }
        let titled = chats.filter { $0.title.caseInsensitiveCompare(text) == .orderedSame }
        if titled.count == 1 { return titled[0].id }
        throw CLIError(
            titled.count > 1 || byID.count > 1
                ? "several chats match '\(text)'; use more of the chat id" : "no chat matches '\(text)'")
    }
}
