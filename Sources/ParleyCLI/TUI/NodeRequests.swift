import Foundation
import ParleyNode
import ParleyTransport

/// The requests the full screen makes besides `watch`, each on its own connection.
enum NodeRequests {
    /// Messages per PageUp load.
    static let pageSize = 50

    /// The page of shown messages (text, links, custom, polls, member changes) older than `oldest`:
    /// one indexed query per PageUp, however much is loaded already.
    static func olderMessages(chat: String, oldest: Int64?) -> ControlRequest {
        .messages(chat: chat, tag: nil, ref: nil, refTag: nil, limit: pageSize, before: oldest, shown: true)
    }

    /// The chat `text` names, as the node resolves it: a unique id prefix, else a title (any case).
    static func resolve(_ text: String, in chats: [ChatLine]) throws -> String {
        let lower = text.lowercased()
        let byID = chats.filter { $0.id.hasPrefix(lower) }
        if lower.allSatisfy(\.isHexDigit), byID.count == 1 { return byID[0].id }
        let titled = chats.filter { $0.title.caseInsensitiveCompare(text) == .orderedSame }
        if titled.count == 1 { return titled[0].id }
        throw CLIError(titled.count > 1 || byID.count > 1 ? "several chats match '\(text)'; use more of the chat id" : "no chat matches '\(text)'")
    }

    /// Connects, sends `request`, decodes the `result` of the one answer (or throws the node's error), hangs up.
    static func ask<Result: Decodable>(_ request: some Encodable, options: ClientOptions, as type: Result.Type) async throws -> Result {
        let client = try await options.client()
        do {
            try await client.connection.send(try ControlJSON.encode(request))
            var answer: Reply<Result>?
            for try await line in client.connection.lines {
                answer = try ControlJSON.decode(Reply<Result>.self, from: line)
                break
            }
            await client.close()
            guard let answer else { throw CLIError("the node closed the connection without answering") }
            guard answer.ok, let result = answer.result else { throw CLIError(answer.error ?? "the node gave no answer") }
            return result
        } catch {
            await client.close()
            throw error
        }
    }

    /// A response line, decoded with the screen's own result types.
    private struct Reply<Result: Decodable>: Decodable {
        let ok: Bool
        let result: Result?
        let error: String?
    }
}

/// Any JSON object, for answers whose content does not matter.
struct Acknowledged: Decodable {}
