import ParleyNode
import Foundation
import ParleyCrypto
import ParleyCore
import ParleyStore

extension APIService {
    func handleReactions(_ request: APIRequest) async throws -> APIResult {
        switch request {
        case let .react(chat, message, type, score, unique):
            let (chatID, target) = try resolveMessage(chat, message)
            let stored = try await node.react(
                chat: chatID, message: target, type: type, score: score ?? 1, unique: unique ?? false)
            return Self.ok(view(stored, names: try names()))
        case let .unreact(chat, message, type):
            let (chatID, target) = try resolveMessage(chat, message)
            return Self.ok(view(try await node.unreact(chat: chatID, message: target, type: type), names: try names()))
        case let .reactions(chat, message, type, author, sort, limit, before):
            let (chatID, target) = try resolveMessage(chat, message)
            let order =
                try sort.map { text in
                    guard let order = ReactionSort(rawValue: text.lowercased()) else {
                        throw NodeError.invalid("--sort is one of count, score, first, last; got '\(text)'")
                    }
                    return order
                } ?? .count
            let listing = try node.reactions(
                chat: chatID, message: target, type: type, author: try author.map(resolveReactionAuthor), sort: order,
                limit: limit ?? 25, before: before)
            return Self.ok(ReactionsView(listing, names: try names()))
        default:
            throw NodeError.invalid("not a reaction request")
        }
    }

    /// The target's current groups for a watch stream; nil while the target is not held.
    func reactionGroupsView(chat: ChatID, message: MessageID) -> ReactionGroupsView? {
        guard let summary = try? node.reactions(chat: chat, message: message) else { return nil }
        return ReactionGroupsView(message: message, groups: summary.groups(viewer: node.me))
    }

    /// Own name, or what `resolvePeer` accepts.
    private func resolveReactionAuthor(_ text: String) throws -> PeerID {
        text.caseInsensitiveCompare(selfName) == .orderedSame || text.lowercased() == node.me.hex
            ? node.me : try resolvePeer(text)
    }
}
