public import ParleyCore
public import ParleyStore

/// One poll, as Stream's PollController: actions as async functions, state as an AsyncSequence.
public struct PollController: Sendable {
    public let node: Node
    public let chat: ChatID
    public let poll: MessageID

    public init(node: Node, chat: ChatID, poll: MessageID) {
        self.node = node
        self.chat = chat
        self.poll = poll
    }

    public var state: PollSnapshot { get throws { try node.pollSnapshot(chat: chat, poll: poll) } }
    public var ownVotes: [String] { get throws { try state.ownVotes } }

    /// Adds options to this user's ballot (replaces it on a unique poll).
    public func castPollVote(_ options: [String]) async throws -> StoredMessage {
        try await node.castVote(chat: chat, poll: poll, options: options)
    }

    /// Removes one option from this user's ballot, or all of it.
    public func removePollVote(_ option: String? = nil) async throws -> StoredMessage {
        try await node.removeVote(chat: chat, poll: poll, option: option)
    }

    public func suggestPollOption(_ text: String) async throws -> StoredMessage {
        try await node.suggestOption(chat: chat, poll: poll, text: text)
    }

    public func addAnswer(_ text: String) async throws -> StoredMessage {
        try await node.answerPoll(chat: chat, poll: poll, text: text)
    }

    public func closePoll() async throws -> StoredMessage { try await node.closePoll(chat: chat, poll: poll) }

    /// The vote-list query: counted ballots (or answers), newest first, a page at a time.
    public func votes(option: String? = nil, answers: Bool = false, limit: Int = 25, before: String? = nil) throws -> PollVotePage {
        try node.pollVotes(chat: chat, poll: poll, option: option, answers: answers, limit: limit, before: before)
    }

    /// The poll's state now and after every change.
    public var updates: some AsyncSequence<PollSnapshot, any Error> { node.pollUpdates(chat: chat, poll: poll) }
}
