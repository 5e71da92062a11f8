import ParleyTerminal

/// A chat as the screen would show it: three chats, messages with reactions, a poll, members.
enum Fixtures {
    static let state = ScreenState(
        chats: [
            ScreenState.Chat(title: "Lunch"), ScreenState.Chat(title: "Weekend trip", unread: 3),
            ScreenState.Chat(title: "Ops"),
        ],
        selectedChat: 0,
        title: "Lunch",
        entries: [
            .message(ScreenState.Message(author: "alice", text: "Where do we eat today?")),
            .message(
                ScreenState.Message(
                    author: "you", text: "Pizza again?", isOwn: true,
                    reactions: [ScreenState.Reaction(emoji: "👍", count: 2, mine: true)])),
            .poll(
                ScreenState.PollCard(
                    id: "565e1db6", author: "alice", question: "Lunch?",
                    options: [
                        ScreenState.PollOption(label: "Pizza", votes: 2, share: 2.0 / 3, mine: true, winner: true),
                        ScreenState.PollOption(label: "Sushi", votes: 1, share: 1.0 / 3),
                    ],
                    summary: "3 votes")),
        ],
        members: [
            ScreenState.Member(name: "alice", presence: .online),
            ScreenState.Member(name: "bob", presence: .offline(lastSeen: "14:02")),
            ScreenState.Member(name: "you", presence: .online, isYou: true),
        ],
        typing: ["alice"],
        input: InputLine("see you"))

    static func text(_ state: ScreenState, width: Int, height: Int) -> String {
        ScreenRenderer.render(state, width: width, height: height).grid.plainText
    }

    /// Lines of a rendered grid without trailing spaces, for comparing against literal snapshots.
    static func lines(_ state: ScreenState, width: Int, height: Int) -> [String] {
        text(state, width: width, height: height).split(separator: "\n", omittingEmptySubsequences: false).map(
            String.init)
    }
}
