/// Where a poll stands. `closing`: its closing time has passed on this node's clock, but its creator's
/// close has not arrived, so the result is not final yet.
public enum PollPhase: String, Hashable, Sendable, Codable {
    case open, closing, closed
    /// Its creator signed two histories before closing it (PROTOCOL.md §4.4): no result is final.
    case disputed
}

/// The state of an options poll as computed from the messages that reference it (docs/POLLS.md).
public struct PollOutcome: Hashable, Sendable {
    public struct Option: Hashable, Sendable {
        public let id: String
        public let text: String
        public let votes: Int
        /// Set for options added by a "PollSuggestion" message (whose id is the option id).
        public let suggestedBy: PeerID?
    }

    public struct Ballot: Hashable, Sendable {
        public let voter: PeerID
        /// Option ids in the poll's option order.
        public let options: [String]
        public let message: MessageID
        public let lamport: UInt64
        public let timestampMillis: Int64
    }

    public struct Answer: Hashable, Sendable {
        public let author: PeerID
        public let text: String
        public let message: MessageID
        public let lamport: UInt64
        public let timestampMillis: Int64
    }

    public let poll: MessageID
    public let spec: PollSpec
    public let options: [Option]
    /// Counted ballots that select at least one option, sorted by voter.
    public let ballots: [Ballot]
    /// Authors whose latest ballot was spoiled (unknown option, or too many).
    public let spoiled: Int
    /// Accepted answers, newest first.
    public let answers: [Answer]
    /// The creator's close, if any: from then on only what it covers counts.
    public let closure: PollClose?
    /// Voters whose latest ballot is outside the close (it does not count; an earlier one inside may).
    public let lateVoters: Set<PeerID>

    public var totalVotes: Int { options.reduce(0) { $0 + $1.votes } }

    /// The options with the most votes (none while nobody has voted).
    public var winners: [String] {
        let top = options.map(\.votes).max() ?? 0
        return top == 0 ? [] : options.filter { $0.votes == top }.map(\.id)
    }

    /// Closed once its creator's close is here; closing from its closing time on this clock until then.
    public func phase(atMillis now: Int64) -> PollPhase {
        if closure != nil { return .closed }
        return spec.closesAtMillis.map { now >= $0 } == true ? .closing : .open
    }

    public func selection(of voter: PeerID) -> [String] { ballots.first { $0.voter == voter }?.options ?? [] }

    /// The option whose text is `text`, ignoring case and surrounding spaces (the rule that makes
    /// a suggestion a duplicate).
    public func option(named text: String) -> Option? { options.first { $0.text.optionKey == text.optionKey } }
}

extension PollRules {
    public static let maxAnswerBytes = 2_000

    /// The outcome of an options poll: a pure function of the set of messages referencing it.
    /// - Parameters:
    ///   - poll: the "Poll" message, whose content decoded to `spec`.
    ///   - related: messages referencing the poll (any order, duplicates allowed, any tags).
    public static func outcome(poll: Message, spec: PollSpec, related: some Sequence<Message>) -> PollOutcome {
        var byTag: [Tag: [Message]] = [:]
        var seen = Set<MessageID>()
        for message in related where seen.insert(message.id).inserted && references(message, poll) {
            byTag[message.tag, default: []].append(message)
        }
        let closure = winningClose(of: poll, among: byTag[.pollClose] ?? [])
        // Claimed clocks and timestamps decide nothing here: after a close, what it covers counts.
        let inWindow = { (message: Message) in closure?.admits(message) ?? true }

        var options = spec.options.enumerated().map {
            (id: PollSpec.optionID(index: $0.offset), text: $0.element, by: PeerID?.none)
        }
        if spec.allowSuggestions {
            var keys = Set(spec.options.map(\.optionKey))
            for suggestion in (byTag[.pollSuggestion] ?? []).filter(inWindow).sorted(by: isEarlier) {
                guard options.count < PollSpec.maxTotalOptions else { break }
                let text = suggestion.text.trimmingWhitespace
                guard (try? PollSpec.validateOption(text)) != nil, keys.insert(text.optionKey).inserted else {
                    continue
                }
                options.append((id: suggestion.id.hex, text: text, by: suggestion.author))
            }
        }
        let order = Dictionary(uniqueKeysWithValues: options.enumerated().map { ($0.element.id, $0.offset) })

        let votes = byTag[.pollVote] ?? []
        let latest = latestByAuthor(votes.filter(inWindow))
        let lateVoters =
            closure.map { closure in Set(latestByAuthor(votes).values.filter { !closure.admits($0) }.map(\.author)) }
            ?? []
        var ballots: [PollOutcome.Ballot] = []
        var spoiled = 0
        for vote in latest.values {
            guard let ids = try? PollSelection.decode(vote.content), ids.allSatisfy({ order[$0] != nil }) else {
                spoiled += 1; continue
            }
            let chosen = Set(ids)
            let selected = options.map(\.id).filter(chosen.contains) // in the options' order, each once
            guard selected.count <= spec.selectionLimit else { spoiled += 1; continue }
            guard !selected.isEmpty else { continue } // withdrawn
            ballots.append(
                .init(
                    voter: vote.author, options: selected, message: vote.id, lamport: vote.lamport,
                    timestampMillis: vote.timestampMillis))
        }
        ballots.sort { $0.voter < $1.voter }
        var counts: [String: Int] = [:]
        for ballot in ballots { for id in ballot.options { counts[id, default: 0] += 1 } }

        let answers =
            spec.allowAnswers
            ? (byTag[.pollAnswer] ?? []).filter { inWindow($0) && isAcceptableAnswer($0.text) }.sorted(by: isEarlier)
                .reversed()
                .map {
                    PollOutcome.Answer(
                        author: $0.author, text: $0.text, message: $0.id, lamport: $0.lamport,
                        timestampMillis: $0.timestampMillis)
                }
            : []
        return PollOutcome(
            poll: poll.id, spec: spec,
            options: options.map { .init(id: $0.id, text: $0.text, votes: counts[$0.id] ?? 0, suggestedBy: $0.by) },
            ballots: ballots, spoiled: spoiled, answers: answers, closure: closure, lateVoters: lateVoters)
    }

    public static func isAcceptableAnswer(_ text: String) -> Bool {
        !text.trimmingWhitespace.isEmpty && text.utf8.count <= maxAnswerBytes
    }

    /// Same chat, and a reference to the poll that carries the message's own tag.
    static func references(_ message: Message, _ poll: Message) -> Bool {
        message.chat == poll.chat && message.references.contains(MessageReference(id: poll.id, tag: message.tag))
    }

    /// Across authors (suggestions, answers): by Lamport clock, ties by author id as bytes and then by
    /// the author's sequence (the chat's history order, PROTOCOL §14), then by id.
    static func isEarlier<Event: PollEvent>(_ lhs: Event, _ rhs: Event) -> Bool {
        (lhs.lamport, lhs.author, lhs.sequence, lhs.id) < (rhs.lamport, rhs.author, rhs.sequence, rhs.id)
    }
}
