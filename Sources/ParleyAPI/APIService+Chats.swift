import ParleyNode
import Foundation
import ParleyCore
import ParleyCrypto
import ParleyStore

/// Chat creation, the chat list and member changes.
extension APIService {
    func createChat(title: String, members: [String], kind: String?) async throws -> ChatView {
        guard let chatKind = ChatKind(rawValue: kind ?? ChatKind.group.rawValue) else {
            throw NodeError.invalid("unknown chat kind '\(kind ?? "")': use direct or group")
        }
        let peers = try members.map { try resolvePeer($0) }
        let invite = try await node.createChat(title: title, members: peers, kind: chatKind)
        return try await chatView(invite.id)
    }

    /// Every chat, direct ones first, each section by last activity (most recent first), then by name.
    func chatList() async throws -> [ChatView] {
        let names = try names()
        let chats = try node.chats()
        let noRoute = try await node.membersWithoutRoute(chats: chats.map(\.invite.id))
        let views = try chats.map { summary in
            try chatView(summary, names: names, noRoute: noRoute[summary.invite.id] ?? [])
        }.sorted { lhs, rhs in
            if lhs.kind != rhs.kind { return lhs.kind == ChatKind.direct.rawValue }
            if lhs.lastActivityMillis != rhs.lastActivityMillis {
                return lhs.lastActivityMillis > rhs.lastActivityMillis
            }
            let order = lhs.name.localizedCaseInsensitiveCompare(rhs.name)
            return order == .orderedSame ? lhs.id < rhs.id : order == .orderedAscending
        }
        return try markingMuted(views)
    }

    func changeMembers(chat text: String, add: [String] = [], remove: [String] = []) async throws -> ChatView {
        let chat = try resolveChat(text)
        if !add.isEmpty { try await node.addMembers(chat: chat, try add.map { try resolvePeer($0) }) }
        if !remove.isEmpty { try await node.removeMembers(chat: chat, try remove.map { try resolvePeer($0) }) }
        return try await chatView(chat)
    }

    func chatView(_ chat: ChatID) async throws -> ChatView {
        guard let summary = try node.chats().first(where: { $0.invite.id == chat }) else {
            throw NodeError.notFound("no chat \(chat.shortHex)")
        }
        let noRoute = try await node.membersWithoutRoute(chats: [chat])[chat] ?? []
        var view = try chatView(summary, names: try names(), noRoute: noRoute)
        view.muted = try node.mutedChats().contains(chat)
        return view
    }

    private func chatView(_ summary: ChatSummary, names: [PeerID: String], noRoute: [PeerID]) throws -> ChatView {
        let chat = summary.invite.id
        return ChatView(
            summary, names: names, me: node.me, unread: try node.unreadCount(chat: chat),
            readMarker: try node.readMarker(chat: chat),
            waitingFor: try node.membersWaiting(chat: chat), noRoute: noRoute, forks: try node.forks(chat: chat),
            unreadMentions: try node.unreadMentions(chat: chat),
            lastMessageAmendments: try summary.lastMessage.flatMap {
                try node.amendments(of: [$0], chat: chat)[$0.message.id]
            }
                ?? .none)
    }
}
