import Foundation
import ParleyNode
import ParleyCore
import ParleyCrypto
import ParleyStore

/// Full-text search of this node's own messages.
extension APIService {
    static let defaultSearchLimit = 25

    func search(text: String, chat: String?, from: String?, tag: String?, limit: Int?, before: String?) async throws
        -> SearchView
    {
        let chatID = try chat.map { try resolveChat($0) }
        let author = try from.map { text in
            text.caseInsensitiveCompare(selfName) == .orderedSame || text.lowercased() == node.me.hex
                ? node.me : try resolvePeer(text)
        }
        let limit = limit ?? Self.defaultSearchLimit
        guard (1...MessageStore.maxSearchLimit).contains(limit) else {
            throw NodeError.invalid("--limit must be between 1 and \(MessageStore.maxSearchLimit)")
        }
        let hits = try await node.search(
            text: text, chat: chatID, author: author, tag: try tag.map { try Tag($0) }, limit: limit,
            before: try before.map { try node.resolveMessage(prefix: $0, in: chatID) })
        let names = try names()
        let name = { (peer: PeerID) in names[peer] ?? String(peer.hex.prefix(8)) }
        return SearchView(
            hits: hits.map { hit in
                SearchHitView(
                    message: view(hit.stored, names: names, amendments: hit.amendments),
                    matched: hit.matched.hex,
                    snippet: hit.snippet.map {
                        SearchHitView.SnippetPart(text: Mentions.rendered($0.text, name: name), match: $0.isMatch)
                    })
            },
            next: hits.count == limit ? hits.last?.matched.hex : nil)
    }
}
