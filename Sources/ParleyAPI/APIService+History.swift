import ParleyNode
import Foundation
import ParleyCore
import ParleyCrypto
import ParleyStore

/// History paging, read markers and receipts on the control socket.
extension APIService {
    func messages(
        chat: String, tag: String?, ref: String?, refTag: String?, limit: Int?, before: String?, after: String?,
        shown: Bool
    ) throws -> APIResult {
        let chatID = try resolveChat(chat)
        if let limit, limit <= 0 { throw NodeError.invalid("--limit must be positive") }
        let beforePosition = try before.map { try position(of: $0, in: chatID) }
        let afterPosition = try after.map { try position(of: $0, in: chatID) }
        if let beforePosition, let afterPosition, afterPosition >= beforePosition {
            throw NodeError.invalid(
                "--after \(after ?? "") comes after --before \(before ?? ""): no message is between them")
        }
        var criteria = MessageCriteria(
            chat: chatID, tag: try tag.map { try Tag($0) },
            referencing: try ref.map { try node.resolveMessage(prefix: $0, in: chatID) },
            referenceTag: try refTag.map { try Tag($0) }, limit: limit, oldestFirst: after != nil && before == nil,
            tags: shown ? ContentKind.shownTags : nil, order: .history, beforePosition: beforePosition,
            afterPosition: afterPosition)
        // A shown history leaves out both branches of a fork (the chat view names the member instead);
        // a query by tag or reference still finds every stored message, as evidence.
        criteria.withoutForked = shown
        criteria.withoutDeletedForMe = shown
        return Self.ok(try views(try node.messages(matching: criteria), chat: chatID, names: try names()))
    }

    /// A paging cursor: the history position of the message whose id starts with `prefix`, in `chat`.
    private func position(of prefix: String, in chat: ChatID) throws -> HistoryPosition {
        let id = try node.resolveMessage(prefix: prefix, in: chat)
        guard let stored = try node.message(id) else { throw NodeError.notFound("no message \(id.shortHex)") }
        return stored.historyPosition
    }

    func markRead(chat: String, upTo: Int64?, message: String?) async throws -> APIResult {
        let chatID = try resolveChat(chat)
        if upTo != nil, message != nil {
            throw NodeError.invalid("read up to a message number or a message id, not both")
        }
        var target = upTo
        if let message {
            let id = try node.resolveMessage(prefix: message, in: chatID)
            guard let stored = try node.message(id) else { throw NodeError.notFound("no message \(id.shortHex)") }
            target = stored.localNumber
        } else if let upTo {
            if upTo <= 0 { throw NodeError.invalid("--upto takes a message number (#N), 1 or more; got \(upTo)") }
            // Past the latest message the marker would stop at it: say so rather than read less than asked.
            let latest = try node.latestLocalNumber(chat: chatID)
            if upTo > latest {
                throw NodeError.invalid(
                    latest == 0
                        ? "there is no #\(upTo): the chat has no messages yet"
                        : "there is no #\(upTo): the chat's messages go up to #\(latest)")
            }
        }
        let newlyRead = try await node.markRead(chat: chatID, upTo: target)
        return Self.ok(
            ReadView(
                chat: chatID.hex, marker: try node.readMarker(chat: chatID), newlyRead: newlyRead,
                unread: try node.unreadCount(chat: chatID)))
    }

    func receipts(chat: String, message: String) throws -> APIResult {
        let chatID = try resolveChat(chat)
        let id = try node.resolveMessage(prefix: message, in: chatID)
        guard let stored = try node.message(id) else { throw NodeError.notFound("no message \(id.shortHex)") }
        let names = try names()
        guard stored.message.author == node.me else {
            let author = names[stored.message.author] ?? stored.message.author.shortHex
            throw NodeError.invalid(
                "receipts are kept for your own messages only; message \(id.shortHex) is by \(author)")
        }
        let receipts = try node.receipts(message: id) ?? []
        let views = receipts.map { ReceiptView($0, names: names) }
        return Self.ok(
            views.sorted { lhs, rhs in
                let left = lhs.name ?? lhs.member, right = rhs.name ?? rhs.member
                let order = left.localizedCaseInsensitiveCompare(right)
                return order == .orderedSame ? lhs.member < rhs.member : order == .orderedAscending
            })
    }
}
