import Foundation
public import ParleyCore
public import ParleyStore

/// Reactions: every add or removal is a "Reaction" message referencing its target; what counts is
/// computed from those messages by ParleyCore's ReactionRules. The node refuses locally what the
/// rules would discard or what would change nothing.
extension Node {
    /// Adds (or re-scores) this user's reaction of `type`; with `unique`, it replaces the user's other types.
    public func react(chat: ChatID, message target: MessageID, type text: String, score: Int = 1, unique: Bool = false)
        async throws -> StoredMessage
    {
        let type = try Self.reactionType(text)
        let content: ReactionContent
        do { content = try .add(type, score: score, unique: unique) } catch {
            throw NodeError.invalid(error.description)
        }
        let summary = try reactions(chat: chat, message: target)
        let mine = summary.types(of: me)
        let others = mine.subtracting([type])
        let same = summary.reaction(of: me, type: type)?.score == score
        guard !same || unique && !others.isEmpty else {
            throw NodeError.invalid("you already reacted \(type) with score \(score) to \(target.shortHex)")
        }
        guard unique || mine.contains(type) || mine.count < ReactionRules.maxTypesPerAuthor else {
            throw NodeError.invalid(
                "you have \(ReactionRules.maxTypesPerAuthor) reactions on \(target.shortHex); remove one first")
        }
        return try await sendReaction(content, chat: chat, target: target)
    }

    /// Withdraws this user's reaction of `type`.
    public func unreact(chat: ChatID, message target: MessageID, type text: String) async throws -> StoredMessage {
        let type = try Self.reactionType(text)
        guard try reactions(chat: chat, message: target).reaction(of: me, type: type) != nil else {
            throw NodeError.invalid("you have no \(type) reaction on \(target.shortHex)")
        }
        return try await sendReaction(.removal(type), chat: chat, target: target)
    }

    /// The counted reactions on a message, from one indexed criteria query.
    public func reactions(chat: ChatID, message target: MessageID) throws -> ReactionSummary {
        let stored = try requireReactionTarget(target, in: chat)
        let related = try store.messages(matching: MessageCriteria(chat: chat, tag: .reaction, referencing: target))
            .map(\.message)
        // A member's reactions from a fork of its chain on count for nothing, whichever branch is here (§4.4).
        let forks = try store.forks(chat: chat)
        return ReactionRules.summary(
            target: stored.message, candidates: forks.isEmpty ? related : related.filter(forks.counts))
    }

    /// The message's groups (sorted) and one page of its reactions, filtered by type and author.
    public func reactions(
        chat: ChatID, message target: MessageID, type: String? = nil, author: PeerID? = nil,
        sort: ReactionSort = .count,
        limit: Int = 25, before: String? = nil
    ) throws -> ReactionListing {
        guard limit > 0 else { throw NodeError.invalid("--limit must be positive") }
        let summary = try reactions(chat: chat, message: target)
        do {
            let page = try summary.page(
                type: try type.map { try Self.reactionType($0) }, author: author, limit: limit,
                before: try before.map { try PageCursor(parsing: $0) })
            return ReactionListing(message: target, groups: summary.groups(viewer: me, sortedBy: sort), page: page)
        } catch let error as CoreError {
            throw NodeError.invalid(error.description)
        }
    }

    private func sendReaction(_ content: ReactionContent, chat: ChatID, target: MessageID) async throws -> StoredMessage
    {
        try await send(
            chat: chat, tag: .reaction, content: content.encoded(),
            references: [MessageReference(id: target, tag: .reaction)])
    }

    private func requireReactionTarget(_ target: MessageID, in chat: ChatID) throws -> StoredMessage {
        guard let stored = try store.message(target), stored.message.chat == chat else {
            throw NodeError.notFound("no message \(target.shortHex) in this chat")
        }
        guard stored.message.tag != .reaction else {
            throw NodeError.invalid("message \(target.shortHex) is a reaction; react to the message itself")
        }
        return stored
    }

    /// Surrounding spaces are dropped, as the user did not mean them.
    static func reactionType(_ text: String) throws -> ReactionType {
        do { return try ReactionType(text.trimmingCharacters(in: .whitespaces)) } catch {
            throw NodeError.invalid(error.description)
        }
    }
}

/// A message's reaction groups and one page of its reactions.
public struct ReactionListing: Hashable, Sendable {
    /// The message reacted to.
    public let message: MessageID
    /// The counted reactions, one group per type, in the requested order.
    public let groups: [ReactionGroup]
    /// One page of the individual reactions.
    public let page: ReactionPage
}
