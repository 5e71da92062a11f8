import ParleyNode
import ParleyCore
import ParleyStore

extension APIService {
    /// Streams a chat live: the latest messages first, then each new one as it is stored.
    /// Text, link and custom messages come as message events; a poll, and every vote on it, as the poll's
    /// current tally; a reaction as its target's current reaction groups; changes of who is typing as
    /// typing events. What is streamed counts as read (the read marker follows it) unless `marksRead`
    /// is false: the web page marks only what was on its screen, with `read`.
    public func watch(
        chat text: String, backlog: Int = 50, marksRead: Bool = true,
        emit: @escaping @Sendable (String) async throws -> Void
    ) async throws {
        let chat = try resolveChat(text)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await watchMessages(chat: chat, backlog: backlog, marksRead: marksRead, emit: emit) }
            group.addTask { try await watchTyping(chat: chat, emit: emit) }
            _ = try await group.next() // the client went away (emit threw) or the store stopped
            group.cancelAll()
        }
    }

    /// Serves a streaming request (`watch`, `watchMessages`) until the client goes away, sending each
    /// line through `emit`; false for a request that is answered once (`respond`).
    public func stream(_ request: APIRequest, emit: @escaping @Sendable (String) async throws -> Void) async throws
        -> Bool
    {
        switch request {
        case let .watch(chat): try await watch(chat: chat, emit: emit)
        case let .watchMessages(chat, tags, ref): try await watchMatching(chat: chat, tags: tags, ref: ref, emit: emit)
        default: return false
        }
        return true
    }

    /// A live criteria query: each message matching as it is stored, as a message event.
    func watchMatching(chat text: String, tags: [String]?, ref: String?, emit: @Sendable (String) async throws -> Void)
        async throws
    {
        let chat = try resolveChat(text)
        // An empty list would match nothing, ever: a stream that never says a word is a mistake.
        if tags?.isEmpty == true {
            throw NodeError.invalid("tags names no tag: give at least one, or leave it out for every tag")
        }
        let reference = try ref.map { try resolveReference($0, chat: chat) }
        let criteria = MessageCriteria(
            chat: chat, referencing: reference?.id, referenceTag: ref?.contains(":") == true ? reference?.tag : nil,
            tags: try tags.map { try $0.map { try Tag($0) } })
        for try await stored in node.liveMessages(matching: criteria) {
            try await emit(Self.encode(WatchEvent(message: view(stored, names: try names()))))
        }
    }

    /// The most unread messages a watch streams at its start so that it may move the read marker over them.
    static let maxUnreadBacklog = 500

    private func watchMessages(
        chat: ChatID, backlog: Int, marksRead wanted: Bool, emit: @Sendable (String) async throws -> Void
    ) async throws {
        var last: Int64 = 0
        // The backlog reaches back to the read marker, so marking what was streamed as read never
        // covers a message nobody was shown. With more unread than that, the marker is left alone.
        let marker = try node.readMarker(chat: chat)
        let unread = try node.messages(
            matching: MessageCriteria(chat: chat, limit: Self.maxUnreadBacklog + 1, afterLocalNumber: marker)
        ).count
        let backlogCoversUnread = unread <= Self.maxUnreadBacklog
        let marksRead = wanted && backlogCoversUnread
        let firstBatch = backlogCoversUnread ? max(backlog, unread) : backlog
        // Subscribed before the first read, so whatever is stored after it wakes the next read.
        var wakeUps = node.arrivals(chat: chat).makeAsyncIterator()
        var limit: Int? = firstBatch
        repeat {
            var criteria = MessageCriteria(chat: chat, limit: limit, afterLocalNumber: last)
            criteria.withoutDeletedForMe = true // what the user hid stays hidden when the page comes back
            let fresh = try node.messages(matching: criteria)
            limit = nil
            guard !fresh.isEmpty else { continue }
            // A member proven to have forked is shown from its fork on nowhere, live streams included (§4.4).
            let forks = try node.forks(chat: chat)
            let names = try names()
            var polls: [MessageID] = []
            var reacted: [MessageID] = []
            var shownMessages: [StoredMessage] = []
            var amended: [MessageID] = []
            for stored in fresh {
                last = max(last, stored.localNumber)
                let message = stored.message
                guard forks.counts(message) else { continue }
                // A reply changes its target's reply count; an edit, deletion or pin, what it shows.
                amended += message.references.filter { ThreadRules.replyTags.contains($0.tag) }.map(\.id)
                switch message.tag {
                case .text, .custom, .membership, .file: shownMessages.append(stored)
                case .edit, .delete, .pin:
                    amended += [AmendmentTarget.of(message, tag: message.tag)].compactMap { $0 }
                case .poll:
                    shownMessages.append(stored)
                    polls.append(message.id)
                case _ where PollRules.changesAPoll(message.tag): polls += PollRules.pollTargets(of: message)
                case .reaction: reacted += message.references.filter { $0.tag == .reaction }.map(\.id)
                default: break
                }
            }
            let freshIDs = Set(shownMessages.map(\.message.id))
            let targets = try Set(amended).subtracting(freshIDs).compactMap { try node.message($0) }.filter {
                let hidden = try node.localData(message: $0.message.id, key: LocalDataKey.deletedForMe) != nil
                return $0.message.chat == chat && forks.counts($0.message) && !hidden
            }
            // New messages with what amends them, then the earlier ones amended now, in history order.
            for view in try views(
                shownMessages + targets.sorted { $0.historyPosition < $1.historyPosition },
                chat: chat, names: names) where view.kind != ContentKind.poll.rawValue
            {
                try await emit(Self.encode(WatchEvent(message: view)))
            }
            var shown = Set<MessageID>()
            for poll in polls where shown.insert(poll).inserted {
                // A vote on a message that is not (yet) a poll: nothing to show.
                guard let view = try? pollView(chat: chat, poll: poll, names: names) else { continue }
                try await emit(Self.encode(WatchEvent(poll: view)))
            }
            for target in Set(reacted) {
                // Its target is not (yet) here: nothing to show.
                guard let view = reactionGroupsView(chat: chat, message: target) else { continue }
                try await emit(Self.encode(WatchEvent(reactions: view)))
            }
            if marksRead { try await node.markRead(chat: chat, upTo: last) }
        } while await wakeUps.next() != nil
    }
}
