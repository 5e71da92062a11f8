import Foundation
import ParleyAPI
import ParleyTerminal

/// What the full screen knows, as received from the node, and how it turns into a `ScreenState`.
/// Input handling lives in `FullScreen`; this holds data only.
struct ChatScreen {
    enum Item: Hashable {
        case message(String)
        case poll(String)
        /// An index into `notices`.
        case notice(Int)
    }

    /// Where an entry goes: its message's history position, then after it the notices shown there.
    typealias Position = (lamport: UInt64, author: String, sequence: UInt64, notice: Int)

    /// This node's peer id, to mark own messages and the own member.
    var me: String?
    var chats: [ChatView] = []
    /// The open chat's full id.
    var chat: String
    /// Messages by id; with the poll cards, shown in history order (as every node lists the chat).
    var messages: [String: MessageView] = [:]

    /// Messages and poll cards in history order (as every node lists the chat), each poll card where
    /// its poll was posted, and each notice after the entry that was newest when it was asked for.
    var items: [Item] {
        let messageItems = messages.values.map { (key: Self.position($0.historyOrder), item: Item.message($0.id)) }
        let pollItems = polls.values.map { (key: Self.position($0.historyOrder), item: Item.poll($0.id)) }
        let noticeItems = notices.indices.map { (key: notices[$0].after, item: Item.notice($0)) }
        return (messageItems + pollItems + noticeItems).sorted { $0.key < $1.key }.map(\.item)
    }

    private static func position(_ order: (UInt64, String, UInt64)) -> Position { (order.0, order.1, order.2, 0) }

    /// Lines the user asked for (`/results`), each shown after `after`.
    var notices: [(after: Position, lines: [String])] = []

    /// The newest message held in history order, what `/react TYPE` applies to.
    var latestMessageID: String? { messages.values.max { $0.historyOrder < $1.historyOrder }?.id }
    var polls: [String: PollResultsView] = [:]
    var reactions: [String: [ReactionGroupView]] = [:]
    /// The open chat's members from `chatList`, shown until `members` answers with presence.
    var members: [MemberView] = []
    var presence: [MemberPresenceView]?
    var typing: [String] = []
    var input = InputLine()
    var focus: ScreenState.Focus = .input
    /// The chat highlighted in the chat pane (moved with the arrows there before opening it).
    var highlighted: Int = 0
    var scroll = 0
    var status: ScreenState.Status?
    /// The open chat's pinned messages, the latest pin first: the pinned bar shows the first.
    var pins: [PinView] = []
    /// Set while the message list shows one message's thread instead of the chat (`/thread`).
    var thread: ThreadPanel?
    /// Messages this user hid here (`/hide`): an edit of one re-sent by the watch stays hidden.
    var hidden: Set<String> = []
    /// Set when older messages were asked for and none came: the start of the chat is loaded.
    var reachedStart = false

    init(chat: String) { self.chat = chat }

    var openIndex: Int? { chats.firstIndex { $0.id == chat } }
    var title: String { chats.first { $0.id == chat }.map(Self.title) ?? String(chat.prefix(8)) }

    static func title(_ chat: ChatView) -> String { chat.name + (chat.sealed ? "" : " " + Render.unsealedMark) }
    /// The earliest message loaded, in history order: where PageUp loads older ones from.
    var oldestLoaded: String? {
        let held =
            messages.values.map { (key: $0.historyOrder, id: $0.id) }
            + polls.values.map { (key: $0.historyOrder, id: $0.id) }
        return held.min { $0.key < $1.key }?.id
    }

    /// Forgets the open chat's contents, to show another.
    mutating func open(_ id: String) {
        chat = id
        messages = [:]
        polls = [:]
        notices = []
        reactions = [:]
        pins = []
        thread = nil
        typing = []
        scroll = 0
        reachedStart = false
        presence = nil
        members = chats.first { $0.id == id }?.members ?? []
        highlighted = openIndex ?? 0
    }

    mutating func apply(_ event: WatchEvent) {
        if let message = event.message { add(message) }
        if let poll = event.poll, messages[poll.id]?.kind != "deleted" { polls[poll.id] = poll }
        if let update = event.reactions { reactions[update.message] = update.groups }
        if let typing = event.typing { self.typing = typing }
    }

    mutating func add(_ message: MessageView) {
        guard !hidden.contains(message.id) else { return }
        messages[message.id] = message
        thread?.apply(message)
    }

    /// Takes a message out of this user's views, as the node did (`deleteForMe`).
    mutating func hide(_ id: String) {
        hidden.insert(id)
        messages[id] = nil
        thread?.remove(id)
    }

    /// Whether `message`, come again on the watch stream, changes what the pinned bar should show:
    /// it was pinned or unpinned, or a pinned message changed (an edit, a deletion).
    func changesPins(_ message: MessageView) -> Bool {
        messages[message.id]?.pinnedBy != message.pinnedBy
            || pins.contains { $0.message.id == message.id && $0.message.text != message.text }
    }

    /// The latest pin, and how many more there are.
    var pinnedBar: ScreenState.PinnedBar? {
        pins.first.map { pin in
            ScreenState.PinnedBar(
                text: AmendmentLines.shownText(pin.message), pinnedBy: name(pin.pinnedBy.id, pin.pinnedBy.name),
                more: pins.count - 1)
        }
    }

    /// Adds or updates a page of messages (older ones, or the latest again for their delivery state).
    /// A poll is shown as its card, never as a message: returns the polls whose cards are not held
    /// yet, to ask for.
    mutating func merge(_ page: [MessageView]) -> [String] {
        var missingPolls: [String] = []
        for message in page {
            if message.kind == "deleted" {
                polls[message.id] = nil // a deleted poll shows as its tombstone
                add(message)
            } else if message.tag == "Poll" {
                if polls[message.id] == nil { missingPolls.append(message.id) }
            } else {
                add(message)
            }
        }
        return missingPolls
    }

    /// Own messages whose ticks can still change (not yet read by every other member): while there
    /// are any, the screen asks the node for the latest page again, as receipts are not streamed.
    var awaitsReceipts: Bool {
        messages.values.contains { $0.state != "received" && $0.recipients > 0 && $0.readBy < $0.recipients }
    }

    /// Shows `lines` after the newest entry held now.
    mutating func addNotice(_ lines: [String]) {
        let held =
            messages.values.map { Self.position($0.historyOrder) }
            + polls.values.map { Self.position($0.historyOrder) }
        let newest = held.max { $0 < $1 } ?? (0, "", 0, 0)
        notices.append(((newest.lamport, newest.author, newest.sequence, notices.count + 1), lines))
    }

    mutating func updateChats(_ list: [ChatView]) {
        chats = list
        members = list.first { $0.id == chat }?.members ?? members
        highlighted = min(highlighted, max(list.count - 1, 0))
    }

    mutating func updateMembers(_ list: [MemberPresenceView]) { presence = list }

    func name(_ id: String, _ name: String?) -> String { id == me ? "you" : Render.name(id, name) }

    var state: ScreenState {
        ScreenState(
            chats: chats.map {
                ScreenState.Chat(
                    title: Self.title($0), unread: $0.id == chat ? 0 : $0.unread,
                    mentions: $0.id == chat ? 0 : $0.unreadMentions)
            },
            selectedChat: focus == .chats ? highlighted : openIndex ?? 0,
            title: title,
            entries: thread.map { thread in thread.messages.map { messageEntry($0, under: thread.root.id) } }
                ?? items.compactMap(entry),
            scroll: scroll,
            members: presence.map { $0.map(member) } ?? members.map(member),
            typing: typing,
            input: input,
            focus: focus,
            status: status,
            warning: forkWarning, pinned: pinnedBar, thread: thread.map { String($0.root.id.prefix(Self.idLength)) })
    }

    /// The open chat's members that signed two histories, as the chat list last said, in one line.
    var forkWarning: String? {
        guard let open = chats.first(where: { $0.id == chat }) else { return nil }
        return ForkNotice.notice(Render.forkMembers(open)).map { "⚠ " + $0 }
    }

    private func entry(_ item: Item) -> ScreenState.Entry? {
        switch item {
        case let .message(id):
            return messages[id].map { messageEntry($0) }
        case let .poll(id):
            return polls[id].map { .poll(Self.card($0, author: name($0.author, $0.authorName))) }
        case let .notice(index):
            return notices.indices.contains(index) ? .notice(notices[index].lines) : nil
        }
    }

    /// `root`: the thread shown, whose replies need no quote of it.
    private func messageEntry(_ message: MessageView, under root: String? = nil) -> ScreenState.Entry {
        let groups = reactions[message.id] ?? []
        return .message(
            ScreenState.Message(
                author: name(message.author, message.authorName), text: FileLines.withState(message),
                isOwn: message.author == me,
                reactions: groups.map { ScreenState.Reaction(emoji: $0.type, count: $0.count, mine: $0.mine) },
                id: String(message.id.prefix(Self.idLength)), time: Self.clockTime(message.timestampMillis),
                delivery: String(Render.ticks(message).drop { $0 == " " }),
                quote: Render.repliedTo(message).flatMap { $0 == root ? nil : quote($0) }, authorID: message.author,
                marks: marks(message),
                mentions: message.mentions.map { "@" + ($0.name ?? String($0.id.prefix(8))) },
                mentionsMe: message.mentionsMe))
    }

    /// Hex digits of the id shown before each entry: typed back as an id prefix in `/reply`, `/react`, `/vote`.
    static let idLength = 8

    /// The quote over a reply to `id`: the message or poll when it is held here, else its id.
    private func quote(_ id: String) -> String {
        if let quoted = messages[id] {
            return Render.quote(
                author: name(quoted.author, quoted.authorName), text: AmendmentLines.shownText(quoted), id: id)
        }
        if let poll = polls[id] {
            return Render.quote(author: name(poll.author, poll.authorName), text: Render.pollQuote(poll), id: id)
        }
        return Render.quote(author: nil, text: nil, id: id)
    }

    private func member(_ member: MemberPresenceView) -> ScreenState.Member {
        let presence: ScreenState.Presence =
            member.online ? .online : .offline(lastSeen: member.lastSeenAt.map(Self.clockTime))
        return Self.member(
            id: member.id, name: member.name, presence: presence, isYou: member.you, forked: member.forkedFrom != nil)
    }

    /// Before presence is known.
    private func member(_ member: MemberView) -> ScreenState.Member {
        let forked = chats.first { $0.id == chat }?.forked.contains { $0.id == member.id } ?? false
        return Self.member(id: member.id, name: member.name, presence: nil, isYou: member.id == me, forked: forked)
    }

    /// A member that signed two histories is marked "⚠" (the warning line above the messages says what it means).
    private static func member(id: String, name: String?, presence: ScreenState.Presence?, isYou: Bool, forked: Bool)
        -> ScreenState.Member
    {
        let shown = isYou && name == nil ? "you" : Render.name(id, name)
        return ScreenState.Member(name: forked ? "⚠ " + shown : shown, presence: presence, isYou: isYou)
    }

    static func card(_ poll: PollResultsView, author: String) -> ScreenState.PollCard {
        // The API's bars (`PollBar`): the same shares and star as the web page draws.
        let labels = Dictionary((poll.options ?? []).map { ($0.id, $0.text) }, uniquingKeysWith: { first, _ in first })
        let options = poll.bars.map { bar in
            ScreenState.PollOption(
                label: labels[bar.choice] ?? bar.choice, votes: bar.votes, share: bar.share,
                mine: poll.ownVotes.contains(bar.choice), winner: bar.winner)
        }
        var summary = poll.secret.map(secretSummary) ?? ["\(poll.totalVotes) vote\(poll.totalVotes == 1 ? "" : "s")"]
        if let voters = poll.disputes?.voters, !voters.isEmpty {
            summary.append(
                "not counted: \(voters.map { Render.name($0.id, $0.name) }.joined(separator: ", ")) (signed two histories)"
            )
        }
        if poll.answersCount > 0 { summary.append("\(poll.answersCount) answer\(poll.answersCount == 1 ? "" : "s")") }
        if let latest = poll.latestAnswers.last { summary.append("“\(latest.text)”") }
        return ScreenState.PollCard(
            id: String(poll.id.prefix(idLength)), author: author, question: poll.question + phaseMark(poll.phase),
            isClosed: poll.isClosed,
            options: options, summary: summary.joined(separator: " · "), time: clockTime(poll.createdAtMillis))
    }

    /// After the question: " [closing]" past its closing time without the creator's close, " [disputed]"
    /// when its creator signed two histories before closing it (no result is final).
    static func phaseMark(_ phase: PollResultsView.Phase) -> String {
        switch phase {
        case .closing: " [closing]"
        case .disputed: " [disputed]"
        case .open, .closed: ""
        }
    }

    /// A secret poll's line under its bars (which stay at zero until the close): never voters.
    private static func secretSummary(_ secret: SecretPollView) -> [String] {
        var parts = ["secret ballot", "\(secret.electorate.count) electors"]
        if let problem = secret.electorateProblem {
            parts.append("refused: \(problem)")
        } else if !secret.resultsFinal {
            parts.append("your vote is hidden among \(secret.hiddenAmong) members")
        }
        parts.append(secret.resultsFinal ? "\(secret.counted ?? 0) counted" : "results at the close")
        // Every node shows it alike: ballots a publisher committed to that the creator did not publish.
        if let suppressed = secret.suppressed, suppressed > 0 {
            let by = (secret.suppressionRevealedBy ?? []).map {
                SafeText.singleLine($0.name ?? String($0.id.prefix(12)))
            }.joined(separator: ", ")
            parts.append("disputed: \(suppressed) left out by the creator (shown by \(by))")
        }
        if let own = secret.ownBallot { parts.append("your ballot: \(own.rawValue)") }
        return parts
    }

    /// "14:02" in local time. With the C library rather than a `DateFormatter`: it runs for every
    /// entry on every redraw, and costs no formatter per call.
    static func clockTime(_ millis: Int64) -> String {
        var seconds = time_t(millis / 1_000)
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return "--:--" }
        return String(format: "%02d:%02d", parts.tm_hour, parts.tm_min)
    }
}
