import Foundation
import Synchronization
import ParleyCrypto
public import ParleyCore
public import ParleyStore

/// Polls: every change is a message referencing the poll, every figure is computed from those
/// messages (ParleyCore's PollRules). The node also refuses locally what the rules would discard.
extension Node {
    /// A BBM yes/no poll: a "Poll" message whose content is the question.
    public func createPoll(chat: ChatID, question: String) async throws -> StoredMessage {
        guard !question.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw NodeError.invalid("a poll needs a question")
        }
        guard !question.unicodeScalars.contains("\u{0}") else {
            throw NodeError.invalid("a question cannot contain NUL characters")
        }
        return try await send(chat: chat, tag: .poll, content: Array(question.utf8))
    }

    /// An options poll with the given settings.
    public func createPoll(chat: ChatID, spec: PollSpec) async throws -> StoredMessage {
        if let closes = spec.closesAtMillis, closes <= clock.wallMillis {
            throw NodeError.invalid("the closing time is in the past")
        }
        let poll = try await send(chat: chat, tag: .poll, content: try spec.encoded())
        if let closes = spec.closesAtMillis { pollDeadlines.add(poll: poll.id, chat: chat, atMillis: closes) }
        return poll
    }

    /// The poll's current state, from one criteria query over the messages referencing it.
    public func pollSnapshot(chat: ChatID, poll: MessageID) throws -> PollSnapshot {
        let stored = try requirePoll(poll, in: chat)
        // A poll deleted for everyone is gone from every view, its results with it (§13d).
        if try amendments(of: [stored], chat: chat)[poll]?.deletion != nil {
            throw NodeError.notFound("poll \(poll.shortHex) was deleted")
        }
        let asked: Poll
        do { asked = try Poll(stored.message) } catch {
            throw NodeError.invalid("poll \(poll.shortHex) has a malformed encoding")
        }
        let forks = try store.forks(chat: chat)
        if case let .secret(secret) = asked { return try secretSnapshot(stored, secret, forks: forks) }
        guard case let .options(spec) = asked else {
            let tally = try yesNoTally(stored.message, forks: forks)
            let own = tally.choice(of: me).map { [$0.rawValue] } ?? []
            return PollSnapshot(
                poll: stored, state: .yesNo(tally), question: asked.question, phase: tally.closed ? .closed : .open,
                ownVotes: own, ownBallot: standing(late: tally.lateVoters, counted: own)
            ).disputed(PollDisputes.of(poll: stored.message, forks: forks, closed: tally.closed))
        }
        let related = try store.messages(matching: MessageCriteria(chat: chat, referencing: poll)).map(\.message)
        let outcome = PollRules.outcome(poll: stored.message, spec: spec, related: related.filter(forks.counts))
        let own = outcome.selection(of: me)
        return PollSnapshot(
            poll: stored, state: .options(outcome), question: spec.question,
            phase: outcome.phase(atMillis: clock.wallMillis),
            ownVotes: own, ownBallot: standing(late: outcome.lateVoters, counted: own)
        ).disputed(PollDisputes.of(poll: stored.message, forks: forks, closed: outcome.closure != nil))
    }

    private func standing(late: Set<PeerID>, counted: [String]) -> BallotStanding? {
        late.contains(me) ? .afterClose : counted.isEmpty ? nil : .counted
    }

    /// A yes/no poll's tally.
    public func pollResults(chat: ChatID, poll: MessageID) throws -> (poll: StoredMessage, tally: PollTally) {
        let snapshot = try pollSnapshot(chat: chat, poll: poll)
        guard let tally = snapshot.tally else {
            throw NodeError.invalid("poll \(poll.shortHex) has options; vote with option ids or texts")
        }
        return (snapshot.poll, tally)
    }

    /// Votes on a poll of any kind, decided here once from the poll itself: on a yes/no poll,
    /// `choices` is `["up"]` or `["down"]`; on an options poll, option ids, unique id prefixes of
    /// suggestions, or option texts, which are added to this user's ballot (with `unique`, they replace
    /// it). Both are messages of this user's. On a secret poll the same choices make a ring-signed
    /// ballot, relayed instead (`castSecretBallot`), and final.
    /// - Parameter keepChoice: on a secret poll, keep the choice on this node after the close (by
    ///   default only "you voted" stays); refused on any other poll, where it means nothing.
    public func vote(chat: ChatID, poll: MessageID, choices: [String], keepChoice: Bool = false) async throws
        -> CastVote
    {
        let snapshot = try pollSnapshot(chat: chat, poll: poll)
        if case let .secret(secret, status) = snapshot.state {
            return .secretBallot(
                try await castSecretBallot(snapshot, secret, status, choices: choices, keepChoice: keepChoice))
        }
        guard !keepChoice else {
            throw NodeError.invalid(
                "keepChoice (--keep-choice) is for secret polls: a vote on this poll is a message of yours")
        }
        guard snapshot.tally != nil else {
            return .message(try await addToBallot(chat: chat, poll: poll, options: choices))
        }
        guard choices.count == 1, let choice = VoteChoice(rawValue: choices[0].lowercased()) else {
            throw NodeError.invalid("a vote on a yes/no poll is 'up' or 'down'")
        }
        try Self.requireOpen(snapshot)
        // Claimed before sending, atomically, so two concurrent votes cannot both pass. The
        // `pollVote` local data guards against a second vote from this user; the tally rule alone
        // would also count only the latest vote per author.
        if let previous = try await store.claimLocalData(
            message: poll, key: LocalDataKey.pollVote, value: choice.rawValue)
        {
            throw NodeError.alreadyVoted(poll, choice: previous)
        }
        do {
            return .message(
                try await send(
                    chat: chat, tag: choice.tag, content: [], references: [MessageReference(id: poll, tag: choice.tag)])
            )
        } catch {
            try? await store.setLocalData(message: poll, key: LocalDataKey.pollVote, value: nil)
            throw error
        }
    }

    private func addToBallot(chat: ChatID, poll: MessageID, options: [String]) async throws -> StoredMessage {
        try await changeBallot(chat: chat, poll: poll) { outcome, current in
            guard !options.isEmpty else { throw NodeError.invalid("name at least one option") }
            let chosen = try options.map { try Self.resolveOption($0, in: outcome) }
            let fresh = chosen.filter { !current.contains($0) }
            guard !fresh.isEmpty || outcome.spec.unique && chosen != current else {
                throw NodeError.invalid("you already voted for \(Self.describe(chosen, in: outcome))")
            }
            return outcome.spec.unique ? chosen : current + fresh
        }
    }

    /// Removes one option from this user's ballot, or the whole ballot.
    public func removeVote(chat: ChatID, poll: MessageID, option: String? = nil) async throws -> StoredMessage {
        try await changeBallot(chat: chat, poll: poll) { outcome, current in
            guard !current.isEmpty else { throw NodeError.invalid("you have no vote on this poll") }
            guard let option else { return [] }
            let id = try Self.resolveOption(option, in: outcome)
            guard current.contains(id) else {
                throw NodeError.invalid("you did not vote for \(Self.describe([id], in: outcome))")
            }
            return current.filter { $0 != id }
        }
    }

    /// A comment on the poll, where the poll allows answers.
    public func answerPoll(chat: ChatID, poll: MessageID, text: String) async throws -> StoredMessage {
        let outcome = try openOptionsPoll(chat: chat, poll: poll)
        guard outcome.spec.allowAnswers else { throw NodeError.invalid("this poll does not take answers") }
        guard PollRules.isAcceptableAnswer(text) else {
            throw NodeError.invalid("an answer must be 1–\(PollRules.maxAnswerBytes) bytes of text")
        }
        return try await send(
            chat: chat, tag: .pollAnswer, content: Array(text.utf8),
            references: [MessageReference(id: poll, tag: .pollAnswer)])
    }

    /// Adds an option, where the poll allows suggestions; its id is the suggestion's message id.
    public func suggestOption(chat: ChatID, poll: MessageID, text: String) async throws -> StoredMessage {
        let outcome = try openOptionsPoll(chat: chat, poll: poll)
        guard outcome.spec.allowSuggestions else { throw NodeError.invalid("this poll does not take suggestions") }
        do { try PollSpec.validateOption(text) } catch { throw NodeError.invalid("\(error)") }
        guard outcome.option(named: text) == nil else {
            throw NodeError.invalid("'\(text)' is already an option")
        }
        guard outcome.options.count < PollSpec.maxTotalOptions else {
            throw NodeError.invalid("the poll is full (\(PollSpec.maxTotalOptions) options)")
        }
        return try await send(
            chat: chat, tag: .pollSuggestion, content: Array(text.trimmingCharacters(in: .whitespacesAndNewlines).utf8),
            references: [MessageReference(id: poll, tag: .pollSuggestion)])
    }

    /// Closes the poll; only its creator can, and only once. The close lists what this node holds of
    /// every author of a message about the poll: only what it covers counts from then on.
    public func closePoll(chat: ChatID, poll: MessageID) async throws -> StoredMessage {
        let snapshot = try pollSnapshot(chat: chat, poll: poll)
        guard snapshot.poll.message.author == me else {
            throw NodeError.invalid("only the poll's creator can close it")
        }
        guard !snapshot.isClosed else { throw NodeError.invalid("poll \(poll.shortHex) is already closed") }
        if case let .secret(secret, _) = snapshot.state {
            let closesAt = secret.closesAtMillis.adding(configuration.ballotReleaseWindow)
            guard clock.wallMillis >= closesAt else {
                throw NodeError.invalid(
                    "a secret poll closes by itself \(configuration.ballotReleaseWindow.millis / 1000) s after its closing time, once its creator has published the ballots its relays handed it"
                )
            }
        }
        let related = try store.messages(matching: MessageCriteria(chat: chat, referencing: poll))
        let authors = Set(related.map(\.message.author))
        let coverage = try PollCoverage.fitting(
            try store.versionVector(chat: chat).filter { authors.contains($0.key) },
            maxBytes: SealedContent.maxPlaintextBytes)
        let close = try await send(
            chat: chat, tag: .pollClose, content: coverage.encoded(),
            references: [MessageReference(id: poll, tag: .pollClose)])
        // The creator may have voted on its own secret poll: its choice goes now, as on every voter's node.
        await forgetSecretChoices(closedBy: [close.message])
        return close
    }

    /// Counted ballots (or, with `answers`, accepted answers), newest first, `limit` at a time.
    public func pollVotes(
        chat: ChatID, poll: MessageID, option: String? = nil, answers: Bool = false, limit: Int = 25,
        before: String? = nil
    ) throws -> PollVotePage {
        guard limit > 0 else { throw NodeError.invalid("--limit must be positive") }
        let snapshot = try pollSnapshot(chat: chat, poll: poll)
        guard snapshot.secret == nil else {
            throw NodeError.invalid("poll \(poll.shortHex) is secret: it lists no votes, only counts at its close")
        }
        guard let outcome = snapshot.outcome else {
            throw NodeError.invalid("poll \(poll.shortHex) is a yes/no poll; see its results")
        }
        let anonymous = outcome.spec.anonymous
        var items: [(key: PageCursor, item: PollVotePage.Item)]
        if answers {
            items = outcome.answers.map { answer in
                (
                    PageCursor(lamport: answer.lamport, id: answer.message),
                    .init(
                        author: anonymous ? nil : answer.author, options: [], text: answer.text,
                        message: answer.message,
                        timestampMillis: answer.timestampMillis)
                )
            }
        } else {
            let filter = try option.map { try Self.resolveOption($0, in: outcome) }
            items = outcome.ballots.filter { ballot in filter.map(ballot.options.contains) ?? true }.map { ballot in
                (
                    PageCursor(lamport: ballot.lamport, id: ballot.message),
                    .init(
                        author: anonymous ? nil : ballot.voter, options: ballot.options, text: nil,
                        message: ballot.message,
                        timestampMillis: ballot.timestampMillis)
                )
            }
        }
        items.sort { $0.key > $1.key }
        if let before {
            let cursor = try PageCursor(parsing: before)
            items = items.filter { $0.key < cursor }
        }
        let page = items.prefix(limit)
        let next = items.count > limit ? page.last?.key.description : nil
        return PollVotePage(items: page.map(\.item), nextCursor: next)
    }

    /// The poll's state after every change to it, starting with the current one.
    public func pollUpdates(chat: ChatID, poll: MessageID) -> some AsyncSequence<PollSnapshot, any Error> {
        store.observe(MessageCriteria(chat: chat, referencing: poll)).map { _ in
            try self.pollSnapshot(chat: chat, poll: poll)
        }
    }

    // MARK: Helpers

    /// Whether the creator's close is here, from the closes alone: no ballot is read or checked.
    func isClosed(_ poll: Message) throws -> Bool {
        let closes = try store.messages(
            matching: MessageCriteria(chat: poll.chat, tag: .pollClose, referencing: poll.id))
        return PollRules.winningClose(of: poll, among: closes.map(\.message)) != nil
    }

    func requirePoll(_ poll: MessageID, in chat: ChatID) throws -> StoredMessage {
        guard let stored = try store.message(poll), stored.message.chat == chat else {
            throw NodeError.notFound("no message \(poll.shortHex) in this chat")
        }
        guard stored.message.tag == .poll else { throw NodeError.notAPoll(poll) }
        return stored
    }

    /// A yes/no tally needs only who voted what and when, read from columns with nothing decoded: the
    /// open ballots the store keeps (one row per voter), or every vote once the creator has closed it.
    /// In a chat with forks, every vote is read and the forked authors' votes from their fork on are
    /// left out (`ChatForks`).
    private func yesNoTally(_ poll: Message, forks: ChatForks) throws -> PollTally {
        if forks.isEmpty {
            let open = try store.pollBallots(chat: poll.chat, poll: poll.id)
            if let tally = PollRules.tally(poll: poll, openBallots: open.ballots, closes: open.closes) { return tally }
        }
        let events = try store.pollEvents(chat: poll.chat, poll: poll.id)
        let votes = events.votes.filter { forks.counts(author: $0.author, sequence: $0.sequence) }
        return PollRules.tally(poll: poll, votes: votes, closes: events.closes.filter(forks.counts))
    }

    private func openOptionsPoll(chat: ChatID, poll: MessageID) throws -> PollOutcome {
        let snapshot = try pollSnapshot(chat: chat, poll: poll)
        guard snapshot.secret == nil else {
            throw NodeError.invalid(
                "poll \(poll.shortHex) is secret: a secret ballot is final, and answers and suggestions would name their authors"
            )
        }
        guard let outcome = snapshot.outcome else {
            throw NodeError.invalid("poll \(poll.shortHex) is a yes/no poll; vote up or down")
        }
        try Self.requireOpen(snapshot)
        return outcome
    }

    /// Past its closing time a poll takes nothing from this node, even before its creator's close arrives.
    static func requireOpen(_ snapshot: PollSnapshot) throws {
        switch snapshot.phase {
        case .open: return
        case .closing: throw NodeError.invalid("poll \(snapshot.poll.id.shortHex) is past its closing time")
        case .disputed:
            throw NodeError.invalid("poll \(snapshot.poll.id.shortHex) is disputed: its creator signed two histories")
        case .closed: throw NodeError.invalid("poll \(snapshot.poll.id.shortHex) is closed")
        }
    }

    /// One ballot change at a time per poll, checked against the rules before it is sent, then
    /// recorded in the poll's local data.
    private func changeBallot(
        chat: ChatID, poll: MessageID, _ change: (PollOutcome, [String]) throws -> [String]
    ) async throws -> StoredMessage {
        guard ballotsInFlight.withLock({ $0.insert(poll).inserted }) else {
            throw NodeError.invalid("another vote on this poll is in progress")
        }
        defer { _ = ballotsInFlight.withLock { $0.remove(poll) } }
        let outcome = try openOptionsPoll(chat: chat, poll: poll)
        let selection = try change(outcome, outcome.selection(of: me))
        guard selection.count <= outcome.spec.selectionLimit else {
            throw NodeError.invalid(
                "this poll allows \(outcome.spec.selectionLimit) vote(s); remove one first with 'poll unvote'")
        }
        let vote = try await send(
            chat: chat, tag: .pollVote, content: try PollSelection.encode(selection),
            references: [MessageReference(id: poll, tag: .pollVote)])
        try await store.setLocalData(
            message: poll, key: LocalDataKey.pollBallot, value: selection.joined(separator: ","))
        return vote
    }

    /// An option id, a unique prefix of a suggested option's id, or an option's text (any case).
    static func resolveOption(_ text: String, in outcome: PollOutcome) throws -> String {
        if let exact = outcome.options.first(where: { $0.id == text }) { return exact.id }
        if let named = outcome.option(named: text) { return named.id }
        let key = text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        let prefixed = key.count >= 4 ? outcome.options.filter { $0.suggestedBy != nil && $0.id.hasPrefix(key) } : []
        if prefixed.count == 1 { return prefixed[0].id }
        let known = outcome.options.map { "\($0.id.prefix(8))=\($0.text)" }.joined(separator: ", ")
        throw NodeError.invalid("no option '\(text)' in this poll (options: \(known))")
    }

    static func describe(_ ids: [String], in outcome: PollOutcome) -> String {
        ids.map { id in outcome.options.first { $0.id == id }.map { "'\($0.text)'" } ?? id }.joined(separator: ", ")
    }
}
