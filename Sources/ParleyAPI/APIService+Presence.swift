import ParleyNode
import ParleyCore
import ParleyCrypto

extension APIService {
    func members(chat text: String) throws -> [MemberPresenceView] {
        let chat = try resolveChat(text)
        let names = try names()
        let forks = try node.forks(chat: chat)
        return try node.members(chat: chat).map { MemberPresenceView($0, names: names, me: node.me, forks: forks) }
            .sorted(by: MemberPresenceView.ordered)
    }

    func typing(chat text: String, active: Bool) async throws -> TypingSentView {
        let chat = try resolveChat(text)
        return TypingSentView(
            chat: chat.hex, active: active, recipients: try await node.setTyping(chat: chat, active: active))
    }

    /// Streams the names of those typing in `chat` (sorted) each time the set changes.
    func watchTyping(chat: ChatID, emit: @Sendable (String) async throws -> Void) async throws {
        var shown: [PeerID] = []
        for await typing in node.typingUpdates(chat: chat) where typing != shown {
            shown = typing
            let names = try names()
            let shownNames = typing.map { names[$0] ?? String($0.hex.prefix(8)) }.sorted {
                $0.lowercased() < $1.lowercased()
            }
            try await emit(Self.encode(WatchEvent(typing: shownNames)))
        }
    }
}
