import Foundation
public import ParleyCore
public import ParleyStore

/// Edits, deletions and pins (PROTOCOL.md §13d): each is a message referencing its target, and what
/// a message shows is computed from those messages by ParleyCore's rules (`MessageAmendments`). The
/// node refuses locally what the rules would not count, with the reason, so nothing is sent in vain.
extension Node {
    /// Sends a new text for a Text message of this user's; the latest edit in this user's chain shows.
    public func edit(chat: ChatID, message target: MessageID, text: String) async throws -> StoredMessage {
        let held = try amendableTarget(target, in: chat)
        guard held.message.author == me else {
            throw NodeError.invalid("message \(target.shortHex) is not yours: only its author can edit it")
        }
        guard EditRules.editableTags.contains(held.message.tag) else {
            throw NodeError.invalid(
                held.message.tag == .poll
                    ? "a poll cannot be edited: votes are cast on what it says; delete it and ask again"
                    : "a \(held.message.tag) message cannot be edited; only Text messages can")
        }
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw NodeError.invalid("the new text is empty; to remove the message, delete it")
        }
        let content = Array(try resolvingMentions(text, chat: chat).utf8)
        let amendments = try amendments(of: [held], chat: chat)[target] ?? .none
        guard amendments.currentContent(of: held.message) != content else {
            throw NodeError.invalid("message \(target.shortHex) already says that")
        }
        return try await send(
            chat: chat, tag: .edit, content: content, references: [MessageReference(id: target, tag: .edit)])
    }

    /// Deletes a message for everyone: this user's own, or any as the chat's creator. Every node stops
    /// showing its content and shows a tombstone instead.
    public func deleteForEveryone(chat: ChatID, message target: MessageID) async throws -> StoredMessage {
        let held = try amendableTarget(target, in: chat)
        guard let membership = try store.membership(of: chat) else {
            throw NodeError.notFound("no chat \(chat.shortHex)")
        }
        guard DeleteRules.deletableTags.contains(held.message.tag) else {
            throw NodeError.invalid(
                "a \(held.message.tag) message cannot be deleted for everyone; withdraw it with its own command"
                    + (held.message.tag.reservedFor.map { " (parley \($0))" } ?? ""))
        }
        guard held.message.author == me || membership.creator == me else {
            throw NodeError.invalid(
                "message \(target.shortHex) is not yours: only its author, or the chat's creator, can delete it")
        }
        let deletion = try await send(
            chat: chat, tag: .delete, content: [], references: [MessageReference(id: target, tag: .delete)])
        try await eraseDeleted(in: [deletion.message])
        return deletion
    }

    /// Hides a message from this user's own views, on this node only: nothing is sent.
    public func deleteForMe(chat: ChatID, message target: MessageID) async throws {
        guard let held = try store.message(target), held.message.chat == chat else {
            throw NodeError.notFound("no message \(target.shortHex) in this chat")
        }
        try await store.setLocalData(message: target, key: LocalDataKey.deletedForMe, value: "1")
    }

    /// Pins a message for the whole chat (any member may), or with `pinned: false` unpins it.
    public func pin(chat: ChatID, message target: MessageID, pinned: Bool = true) async throws -> StoredMessage {
        let held = try amendableTarget(target, in: chat)
        guard PinRules.pinnableTags.contains(held.message.tag) else {
            throw NodeError.invalid("a \(held.message.tag) message cannot be pinned; pin a message the chat shows")
        }
        let current = try amendments(of: [held], chat: chat)[target]?.pin
        if pinned, let current {
            throw NodeError.invalid("message \(target.shortHex) is already pinned (by \(current.author.shortHex))")
        }
        if !pinned, current == nil { throw NodeError.invalid("message \(target.shortHex) is not pinned") }
        return try await send(
            chat: chat, tag: .pin, content: (pinned ? PinContent.pin : .unpin).encoded,
            references: [MessageReference(id: target, tag: .pin)])
    }

    /// The chat's pinned messages, the latest pin first, with who pinned each.
    public func pins(chat: ChatID) throws -> [PinnedMessage] {
        let forks = try store.forks(chat: chat)
        let pinEvents = try store.messages(matching: MessageCriteria(chat: chat, tag: .pin)).map(\.message)
            .filter(forks.counts)
        let targets = Set(pinEvents.compactMap { AmendmentTarget.of($0, tag: .pin) })
        let held = try targets.compactMap { try store.message($0) }.filter {
            $0.message.chat == chat && forks.counts($0.message)
        }
        let amendments = try amendments(of: held, chat: chat)
        return held.compactMap { stored -> PinnedMessage? in
            guard let found = amendments[stored.message.id], let pin = found.pin else { return nil }
            return PinnedMessage(message: stored, amendments: found, pin: pin)
        }.sorted { HistoryPosition($0.pin) > HistoryPosition($1.pin) }
    }

    /// A message and its replies, in history order, each with what amends it.
    public func thread(chat: ChatID, message target: MessageID) throws -> MessageThread {
        guard let root = try store.message(target), root.message.chat == chat else {
            throw NodeError.notFound("no message \(target.shortHex) in this chat")
        }
        guard ThreadRules.replyTags.contains(root.message.tag) else {
            throw NodeError.invalid(
                "a \(root.message.tag) message has no thread; replies go to messages the chat shows")
        }
        var criteria = MessageCriteria(
            chat: chat, referencing: target, referenceTag: root.message.tag, tags: Array(ThreadRules.replyTags),
            order: .history)
        criteria.withoutForked = true
        criteria.withoutDeletedForMe = true
        let replies = try store.messages(matching: criteria).filter {
            ThreadRules.isReply($0.message, to: root.message)
        }
        return MessageThread(root: root, replies: replies, amendments: try amendments(of: [root] + replies, chat: chat))
    }

    /// How many targets one amendments query names (well below SQLite's limit on bound values).
    static let amendmentQueryChunk = 500

    /// What amends each of `targets` (messages of `chat`): one criteria query for the lot. Amendments
    /// by a member proven to have forked count for nothing from its fork on (§4.4).
    public func amendments(of targets: [StoredMessage], chat: ChatID) throws -> [MessageID: MessageAmendments] {
        let shown = targets.filter { ThreadRules.replyTags.contains($0.message.tag) }
        guard !shown.isEmpty, let membership = try store.membership(of: chat) else { return [:] }
        let forks = try store.forks(chat: chat)
        var related: [Message] = []
        // In chunks: a whole history's ids would pass SQLite's limit on bound values.
        for start in stride(from: 0, to: shown.count, by: Self.amendmentQueryChunk) {
            let tags: [Tag] = [.edit, .delete, .pin] + Array(ThreadRules.replyTags)
            var criteria = MessageCriteria(chat: chat, tags: tags)
            // An amendment references its target with its own tag, a reply with the target's (§13d),
            // both among these. For a few targets (a poll's deletion check) they are looked up by
            // both tags in the index, 49 seeks a target, and a poll's thousands of votes are passed
            // over; a page of hundreds reads each target's references in one seek instead.
            if shown.count <= Self.indexedAmendmentTargets { criteria.referenceTags = tags }
            criteria.referencingAny = shown[start..<min(start + Self.amendmentQueryChunk, shown.count)].map(
                \.message.id)
            related += try store.messages(matching: criteria).map(\.message).filter(forks.counts)
        }
        var byTarget: [MessageID: [Message]] = [:]
        for message in related {
            for reference in Set(message.references.map(\.id)) { byTarget[reference, default: []].append(message) }
        }
        var result: [MessageID: MessageAmendments] = [:]
        for stored in shown {
            guard let amending = byTarget[stored.message.id] else { continue }
            result[stored.message.id] = MessageAmendments(
                target: stored.message, related: amending, creator: membership.creator)
        }
        return result
    }

    /// Up to this many targets, `amendments(of:)` looks them up by reference and message tag.
    static let indexedAmendmentTargets = 16

    /// How many of the latest unread messages look at: enough for any count a person reads as such,
    /// bounded so the chat list stays quick in a chat left unread for months.
    public static let mentionScanLimit = 1_000

    /// Unread messages by others (among the latest `mentionScanLimit` unread) that mention this user.
    public func unreadMentions(chat: ChatID) throws -> Int {
        let unread = try store.messages(
            matching: MessageCriteria(
                chat: chat, tag: .text, limit: Self.mentionScanLimit, afterLocalNumber: try store.readMarker(chat: chat)
            ))
        let mentioning = unread.filter {
            $0.message.author != me && Mentions.mentioned(in: $0.message.text).contains(me)
        }
        guard !mentioning.isEmpty else { return 0 }
        let amended = try amendments(of: mentioning, chat: chat)
        return mentioning.count { amended[$0.message.id]?.deletion == nil }
    }

    /// `@name` of a member of the chat (by contact name) becomes that member's mention token (§13d).
    public func resolvingMentions(_ text: String, chat: ChatID) throws -> String {
        // Scanned as bytes: `String.contains` with a string goes through Foundation, for every message sent.
        guard text.utf8.contains(UInt8(ascii: "@")), let membership = try store.membership(of: chat) else {
            return text
        }
        let names = try store.contacts().reduce(into: [PeerID: String]()) { $0[$1.peer] = $1.name }
        return Mentions.resolving(text, members: membership.members.compactMap { id in names[id].map { (id, $0) } })
    }

    /// A message of the chat that an edit, deletion or pin may name: held, and not deleted.
    private func amendableTarget(_ target: MessageID, in chat: ChatID) throws -> StoredMessage {
        guard let held = try store.message(target), held.message.chat == chat else {
            throw NodeError.notFound("no message \(target.shortHex) in this chat")
        }
        if try amendments(of: [held], chat: chat)[target]?.deletion != nil {
            throw NodeError.invalid("message \(target.shortHex) was deleted")
        }
        return held
    }
}

/// A pinned message, with what amends it and the pin in force.
public struct PinnedMessage: Sendable, Hashable {
    public let message: StoredMessage
    public let amendments: MessageAmendments
    /// The `Pin` message in force: its author pinned it.
    public let pin: Message
}

/// A message and its replies, in history order.
public struct MessageThread: Sendable, Hashable {
    public let root: StoredMessage
    public let replies: [StoredMessage]
    /// What amends the root and each reply.
    public let amendments: [MessageID: MessageAmendments]
}
