import ParleyCore
import ParleyCrypto
import Testing

/// The options-poll rules of docs/POLLS.md, one table row per rule and setting.
struct PollOutcomeTests {
    static let alice = Fixtures.alice, bob = Fixtures.bob, carol = Fixtures.carol, mallory = Fixtures.mallory

    static func poll(_ spec: PollSpec, by author: Identity = alice) throws -> Message {
        try MessageDraft(
            chat: Fixtures.invite.id, author: author.publicKey, sequence: 1, lamport: 1, timestampMillis: 1_000,
            tag: .poll,
            content: try spec.encoded()
        ).signed(by: author)
    }

    static func related(
        _ author: Identity, _ tag: ParleyCore.Tag, on poll: Message, seq: UInt64, lamport: UInt64,
        at time: Int64 = 2_000, content: [UInt8]
    ) throws -> Message {
        try MessageDraft(
            chat: Fixtures.invite.id, author: author.publicKey, sequence: seq, lamport: lamport, timestampMillis: time,
            tag: tag,
            content: content, references: [MessageReference(id: poll.id, tag: tag)]
        ).signed(by: author)
    }

    static func vote(
        _ author: Identity, _ ids: [String], on poll: Message, seq: UInt64 = 1, lamport: UInt64 = 5,
        at time: Int64 = 2_000
    ) throws -> Message {
        try related(
            author, .pollVote, on: poll, seq: seq, lamport: lamport, at: time, content: PollSelection.encode(ids))
    }

    /// Alice's close, covering per author the sequences `1...highest` except `missing`.
    static func close(
        _ poll: Message, covering highest: [PeerID: UInt64], missing: [PeerID: [ClosedRange<UInt64>]] = [:],
        seq: UInt64 = 2,
        lamport: UInt64
    ) throws -> Message {
        var holdings: [PeerID: AuthorHoldings] = [:]
        for (author, top) in highest {
            holdings[author] = try AuthorHoldings(highest: top, missing: missing[author] ?? [])
        }
        return try related(
            alice, .pollClose, on: poll, seq: seq, lamport: lamport, content: PollCoverage(holdings: holdings).encoded()
        )
    }

    static let lunch = PollSpec(question: "Lunch?", options: ["Pizza", "Sushi", "Tacos"], maxVotes: 2)

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let spec: PollSpec
        let messages: @Sendable (Message) throws -> [Message]
        let votes: [Int]
        let spoiled: Int
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "one ballot per author: the latest in its own chain, whatever clock it claims", spec: lunch,
            messages: { p in
                [try vote(bob, ["1"], on: p, seq: 1, lamport: 9), try vote(bob, ["2"], on: p, seq: 2, lamport: 5)]
            }, votes: [0, 1, 0], spoiled: 0),
        Case(
            name: "a repeated option counts once", spec: lunch, messages: { p in [try vote(bob, ["1", "1"], on: p)] },
            votes: [1, 0, 0], spoiled: 0),
        Case(
            name: "more options than max-votes spoils the ballot", spec: lunch,
            messages: { p in
                [try vote(bob, ["1", "2", "3"], on: p), try vote(carol, ["3"], on: p)]
            }, votes: [0, 0, 1], spoiled: 1),
        Case(
            name: "an unknown option spoils the ballot", spec: lunch,
            messages: { p in [try vote(bob, ["1", "9"], on: p)] }, votes: [0, 0, 0], spoiled: 1),
        Case(
            name: "an empty ballot withdraws the vote", spec: lunch,
            messages: { p in
                [try vote(bob, ["1"], on: p, seq: 1, lamport: 5), try vote(bob, [], on: p, seq: 2, lamport: 6)]
            }, votes: [0, 0, 0], spoiled: 0),
        Case(
            name: "unique allows one option", spec: PollSpec(question: "Q", options: ["A", "B"], unique: true),
            messages: { p in
                [try vote(bob, ["1", "2"], on: p), try vote(carol, ["2"], on: p)]
            }, votes: [0, 1], spoiled: 1),
        Case(
            name: "only the creator's close counts; what it does not cover does not", spec: lunch,
            messages: { p in
                [
                    try related(
                        mallory, .pollClose, on: p, seq: 1, lamport: 3, content: PollCoverage(holdings: [:]).encoded()),
                    try close(p, covering: [bob.publicKey: 1], lamport: 7),
                    try vote(bob, ["1"], on: p, lamport: 6), try vote(carol, ["2"], on: p, lamport: 7),
                ]
            }, votes: [1, 0, 0], spoiled: 0),
        Case(
            name: "the first close in the creator's chain wins, whatever clock a later one claims", spec: lunch,
            messages: { p in
                [
                    try close(p, covering: [bob.publicKey: 1], seq: 2, lamport: 9),
                    try close(p, covering: [:], seq: 3, lamport: 4),
                    try vote(bob, ["1"], on: p, lamport: 6),
                ]
            }, votes: [1, 0, 0], spoiled: 0),
        Case(
            name: "a close without a coverage is no close, whatever its clock", spec: lunch,
            messages: { p in
                [
                    try related(alice, .pollClose, on: p, seq: 2, lamport: 4, content: []),
                    try vote(bob, ["1"], on: p, lamport: 6),
                ]
            }, votes: [1, 0, 0], spoiled: 0),
        Case(
            name: "after a close, a ballot the close does not cover falls back to the author's earlier one",
            spec: PollSpec(question: "Q", options: ["A", "B"], closesAtMillis: 5_000),
            messages: { p in
                [
                    try vote(bob, ["1"], on: p, seq: 1, lamport: 5, at: 4_000),
                    try close(p, covering: [bob.publicKey: 1], lamport: 8),
                    try vote(bob, ["2"], on: p, seq: 2, lamport: 6, at: 4_500),
                ]
            }, votes: [1, 0], spoiled: 0),
        Case(
            name: "a backdated vote sent after the close does not count, whatever clock it claims", spec: lunch,
            messages: { p in
                [
                    try vote(bob, ["1"], on: p, seq: 1, lamport: 5),
                    try close(p, covering: [bob.publicKey: 1], lamport: 1_000_000_000_002),
                    try vote(carol, ["2"], on: p, seq: 1, lamport: 1_000_000_000_001),
                ]
            }, votes: [1, 0, 0], spoiled: 0),
        Case(
            name: "filling a gap in one's own sequences after the close does not count", spec: lunch,
            messages: { p in
                [
                    try vote(bob, ["1"], on: p, seq: 1, lamport: 5), try vote(bob, ["1"], on: p, seq: 3, lamport: 7),
                    try close(p, covering: [bob.publicKey: 3], missing: [bob.publicKey: [2...2]], lamport: 9),
                    try vote(bob, ["2"], on: p, seq: 2, lamport: 8),
                ]
            }, votes: [1, 0, 0], spoiled: 0),
        Case(
            name: "timestamps decide nothing: a vote stamped after the closing time counts until the close",
            spec: PollSpec(
                question: "Q", options: ["A", "B"], closesAtMillis: 5_000),
            messages: { p in [try vote(bob, ["2"], on: p, at: 6_000)] },
            votes: [0, 1], spoiled: 0),
        Case(
            name: "a close whose content is not a coverage is no close", spec: lunch,
            messages: { p in
                [
                    try related(alice, .pollClose, on: p, seq: 2, lamport: 4, content: [7, 7]),
                    try vote(bob, ["1"], on: p, lamport: 6),
                ]
            }, votes: [1, 0, 0], spoiled: 0),
        Case(
            name: "a vote without the matching reference tag counts nowhere", spec: lunch,
            messages: { p in
                [
                    try MessageDraft(
                        chat: Fixtures.invite.id, author: bob.publicKey, sequence: 1, lamport: 5, timestampMillis: 0,
                        tag: .pollVote,
                        content: try PollSelection.encode(["1"]), references: [MessageReference(id: p.id, tag: .text)]
                    ).signed(by: bob)
                ]
            }, votes: [0, 0, 0], spoiled: 0),
    ]

    @Test(arguments: cases) func appliesTheRule(_ rule: Case) throws {
        let poll = try Self.poll(rule.spec)
        let messages = try rule.messages(poll)
        let outcome = PollRules.outcome(poll: poll, spec: rule.spec, related: messages)
        #expect(outcome.options.map(\.votes) == rule.votes)
        #expect(outcome.spoiled == rule.spoiled)
        // Any order, with duplicates, gives the same outcome.
        #expect(PollRules.outcome(poll: poll, spec: rule.spec, related: (messages + messages).reversed()) == outcome)
    }

    @Test func suggestionsAndAnswersCountOnlyWhereTheyAreAllowed() throws {
        for allowed in [true, false] {
            let spec = PollSpec(question: "Q", options: ["A", "B"], allowAnswers: allowed, allowSuggestions: allowed)
            let poll = try Self.poll(spec)
            let suggestion = try Self.related(
                Self.bob, .pollSuggestion, on: poll, seq: 1, lamport: 2, content: Array("C".utf8))
            let duplicate = try Self.related(
                Self.carol, .pollSuggestion, on: poll, seq: 1, lamport: 3, content: Array(" a ".utf8))
            let answer = try Self.related(
                Self.carol, .pollAnswer, on: poll, seq: 2, lamport: 4, content: Array("why not both".utf8))
            let vote = try Self.vote(Self.mallory, [suggestion.id.hex], on: poll, lamport: 5)
            let outcome = PollRules.outcome(poll: poll, spec: spec, related: [suggestion, duplicate, answer, vote])
            #expect(outcome.options.map(\.text) == (allowed ? ["A", "B", "C"] : ["A", "B"]))
            #expect(outcome.answers.map(\.text) == (allowed ? ["why not both"] : []))
            #expect(outcome.options.last?.votes == (allowed ? 1 : 0))
            #expect(outcome.spoiled == (allowed ? 0 : 1))
        }
    }

    @Test func winnersTotalsAndClosingTimeFollowTheVotes() throws {
        let spec = PollSpec(question: "Q", options: ["A", "B", "C"], maxVotes: 2, closesAtMillis: 10_000)
        let poll = try Self.poll(spec)
        let outcome = PollRules.outcome(
            poll: poll, spec: spec,
            related: [
                try Self.vote(Self.bob, ["1", "2"], on: poll), try Self.vote(Self.carol, ["2"], on: poll),
                try Self.vote(Self.mallory, ["1"], on: poll),
            ])
        #expect(outcome.winners == ["1", "2"])
        #expect(outcome.totalVotes == 4)
        #expect(outcome.selection(of: Self.bob.publicKey) == ["1", "2"])
        #expect(outcome.phase(atMillis: 9_999) == .open)
        // Past its closing time it is only closing: the creator's close makes it final
        #expect(outcome.phase(atMillis: 10_000) == .closing)
        let closed = PollRules.outcome(
            poll: poll, spec: spec, related: [try Self.close(poll, covering: [:], lamport: 9)])
        #expect(closed.phase(atMillis: 10_000) == .closed)
    }

    @Test func specRoundTripsAndRejectsBadSettings() throws {
        let spec = PollSpec(
            question: "Where?", description: "Friday", options: ["Here", "There"], maxVotes: 1, anonymous: true,
            allowAnswers: true,
            closesAtMillis: 1_900_000_000_000)
        #expect(try PollSpec.decode(content: spec.encoded()) == spec)
        #expect(try PollSpec.decode(content: Array("Pizza?".utf8)) == nil) // a yes/no poll
        #expect(throws: CoreError.self) { try PollSpec(question: "Q", options: ["Only"]).encoded() }
        #expect(throws: CoreError.self) { try PollSpec(question: "Q", options: ["A", "a"]).encoded() }
        #expect(throws: CoreError.self) { try PollSpec(question: " ", options: ["A", "B"]).encoded() }
        #expect(throws: CoreError.self) {
            try PollSpec(question: "Q", options: ["A", "B"], maxVotes: 2, unique: true).encoded()
        }
        #expect(throws: CoreError.self) { try PollSpec.decode(content: [0, 1, 0xFF]) }
        #expect(throws: CoreError.self) { try PollSpec.decode(content: Array(try spec.encoded().dropLast())) }
    }
}
