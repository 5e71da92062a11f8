import ParleyCore
import ParleyCrypto
import ParleyTestKit
import Testing

struct ReactionRulesTests {
    typealias F = Fixtures
    static let target = (try? F.message(F.alice, seq: 1, lamport: 1, text: "lunch at noon?"))!

    /// A reaction by `author` on `target` (or on `on`), with the given content, clock and author timestamp.
    static func reaction(
        _ author: Identity, _ content: ReactionContent, lamport: UInt64, sequence: UInt64? = nil,
        at millis: Int64 = 1_000,
        on: Message = target, tag: ParleyCore.Tag = .reaction, refTag: ParleyCore.Tag = .reaction, chat: ChatID? = nil
    ) throws -> Message {
        try raw(
            author, content.encoded(), lamport: lamport, sequence: sequence, at: millis, on: on, tag: tag,
            refTag: refTag, chat: chat)
    }

    /// The message's sequence is `sequence`, or its clock when not given (an honest author's clocks rise with it).
    static func raw(
        _ author: Identity, _ bytes: [UInt8], lamport: UInt64, sequence: UInt64? = nil, at millis: Int64 = 1_000,
        on: Message = target,
        tag: ParleyCore.Tag = .reaction, refTag: ParleyCore.Tag = .reaction, chat: ChatID? = nil
    ) throws -> Message {
        try MessageDraft(
            chat: chat ?? on.chat, author: author.publicKey, sequence: sequence ?? lamport, lamport: lamport,
            timestampMillis: millis,
            tag: tag, content: bytes, references: [MessageReference(id: on.id, tag: refTag)]
        ).signed(by: author)
    }

    static func add(_ text: String, score: Int = 1, unique: Bool = false) throws -> ReactionContent {
        try .add(ReactionType(text), score: score, unique: unique)
    }

    static func remove(_ text: String) throws -> ReactionContent { .removal(try ReactionType(text)) }

    /// (type, count, score) of each group, by count.
    static func counts(_ messages: [Message], viewer: Identity = F.alice) -> [String] {
        ReactionRules.summary(target: target, candidates: messages).groups(viewer: viewer.publicKey)
            .map { "\($0.type) \($0.count) \($0.score)\($0.mine ? "*" : "")" }
    }

    @Test func oneReactionPerAuthorAndTypeCounts() throws {
        // Given alice and bob react 👍 (bob twice, re-scored), carol ❤️ and 👍
        let messages = [
            try Self.reaction(F.alice, Self.add("👍"), lamport: 2),
            try Self.reaction(F.bob, Self.add("👍"), lamport: 3),
            try Self.reaction(F.bob, Self.add("👍", score: 5), lamport: 4),
            try Self.reaction(F.carol, Self.add("❤️"), lamport: 5),
            try Self.reaction(F.carol, Self.add("👍", score: -2), lamport: 6),
        ]
        // Then bob's latest counts, once
        #expect(Self.counts(messages) == ["👍 3 4*", "❤️ 1 1"])
        #expect(Self.counts(messages, viewer: F.mallory) == ["👍 3 4", "❤️ 1 1"])
    }

    @Test func theLatestEventPerAuthorAndTypeDecides() throws {
        let added = try Self.reaction(F.bob, Self.add("🎉"), lamport: 2)
        let removed = try Self.reaction(F.bob, Self.remove("🎉"), lamport: 3)
        let again = try Self.reaction(F.bob, Self.add("🎉", score: 7), lamport: 4)
        #expect(Self.counts([added, removed]) == [])
        #expect(Self.counts([removed, added, again]) == ["🎉 1 7"])
        // A removal earlier in bob's chain than the add changes nothing
        let staleRemoval = try Self.reaction(F.bob, Self.remove("🎉"), lamport: 1)
        #expect(Self.counts([staleRemoval, added]) == ["🎉 1 1"])
        // At one sequence (only a forking author makes two), the larger message id wins
        let twins = [
            try Self.reaction(F.bob, Self.add("🎉", score: 2), lamport: 9),
            try Self.reaction(F.bob, Self.remove("🎉"), lamport: 9),
        ]
        let winner = twins.max { $0.id < $1.id }!
        #expect(Self.counts(twins) == (winner == twins[0] ? ["🎉 1 2"] : []))
    }

    @Test func anAuthorsLaterRemovalWinsWhateverClocksItsEventsClaim() throws {
        // Given bob's clock saturated by a member's 2^63 − 1: he adds 🔥 and then removes it, both at that
        // clock, and the removal's id sorts lower (the case where ordering by clock then id kept 🔥)
        let saturated = UInt64(Int64.max)
        let added = try Self.reaction(F.bob, Self.add("🔥"), lamport: saturated, sequence: 1)
        let removed = try (0..<64).lazy.map { millis in
            try Self.reaction(F.bob, Self.remove("🔥"), lamport: saturated, sequence: 2, at: Int64(millis))
        }
        .first { $0.id < added.id }
        let removal = try #require(removed)
        // Then the removal, later in bob's own chain, decides, in either order
        #expect(Self.counts([added, removal]) == [])
        #expect(Self.counts([removal, added]) == [])
        // And a later add claiming a lower clock than his earlier removal counts
        let again = try Self.reaction(F.bob, Self.add("🔥", score: 3), lamport: 2, sequence: 3)
        #expect(Self.counts([again, removal, added]) == ["🔥 1 3"])
    }

    @Test func aUniqueAddClearsTheAuthorsOlderOtherTypes() throws {
        // Given bob reacted 👍 and ❤️, then a unique 🎉, then 👀 after it
        let messages = [
            try Self.reaction(F.bob, Self.add("👍"), lamport: 2),
            try Self.reaction(F.bob, Self.add("❤️"), lamport: 3),
            try Self.reaction(F.bob, Self.add("🎉", unique: true), lamport: 4),
            try Self.reaction(F.bob, Self.add("👀"), lamport: 5),
            try Self.reaction(F.carol, Self.add("👍"), lamport: 3),
        ]
        // Then only the unique one and the later one count for bob; carol is untouched
        #expect(Self.counts(messages) == ["🎉 1 1", "👀 1 1", "👍 1 1"]) // equal counts: by type bytes
        // and removing the unique reaction does not bring the replaced ones back
        let removal = try Self.reaction(F.bob, Self.remove("🎉"), lamport: 6)
        #expect(Self.counts(messages + [removal]) == ["👀 1 1", "👍 1 1"])
        // while a unique re-add of the same type keeps only that type
        let reunique = try Self.reaction(F.bob, Self.add("👍", unique: true), lamport: 7)
        #expect(Self.counts(messages + [removal, reunique]) == ["👍 2 2"])
    }

    @Test func ignoresWhatDoesNotApply() throws {
        let elsewhere = try F.message(F.bob, seq: 1, lamport: 1, text: "another")
        let messages = [
            try Self.reaction(F.bob, Self.add("👍"), lamport: 2, on: elsewhere), // another target
            try Self.reaction(F.bob, Self.add("👍"), lamport: 3, refTag: .text), // reference tag is not Reaction
            try Self.reaction(F.bob, Self.add("👍"), lamport: 4, tag: .text), // not a Reaction message
            try Self.reaction(
                F.bob, Self.add("👍"), lamport: 5, chat: try ChatID(rawRepresentation: [UInt8](repeating: 7, count: 32))),
            try Self.raw(F.bob, [0x01, 0x00, 0x7F, 0xFF, 0xFF, 0xFF, 1, 0x61], lamport: 6), // score 2^31 − 1
            try Self.raw(F.bob, [0x09, 0x00], lamport: 7), // unknown version
        ]
        #expect(Self.counts(messages) == [])
        // and a hostile out-of-range score does not hide the author's valid reaction either
        #expect(Self.counts(messages + [try Self.reaction(F.bob, Self.add("a"), lamport: 1)]) == ["a 1 1"])
    }

    @Test func anAuthorCountsAtMostThirtyTwoTypesTheLatestOnes() throws {
        let messages = try (1...40).map { try Self.reaction(F.mallory, Self.add("t\($0)"), lamport: UInt64($0)) }
        let summary = ReactionRules.summary(target: Self.target, candidates: messages)
        #expect(summary.reactions.count == ReactionRules.maxTypesPerAuthor)
        #expect(Set(summary.reactions.map(\.type.rawValue)) == Set((9...40).map { "t\($0)" }))
    }

    @Test(arguments: [1, 2, 3, 42] as [UInt64]) func anyArrivalOrderWithDuplicatesGivesTheSameResult(seed: UInt64)
        throws
    {
        // Given a random history of adds, unique adds and removals by four authors over four types
        var random = SplitMix64(seed: seed)
        let authors = [F.alice, F.bob, F.carol, F.mallory], types = ["👍", "❤️", "🎉", "no"]
        var history: [Message] = []
        for _ in 0..<60 {
            let author = authors[Int(random.next() % 4)], type = types[Int(random.next() % 4)]
            let lamport = 2 + random.next() % 20 // collisions on purpose: ties fall to the message id
            let content: ReactionContent =
                switch random.next() % 4 {
                case 0: try Self.remove(type)
                case 1: try Self.add(type, score: Int(random.next() % 11) - 5, unique: true)
                default: try Self.add(type, score: Int(random.next() % 11) - 5)
                }
            history.append(try Self.reaction(author, content, lamport: lamport, at: Int64(random.next() % 10_000)))
        }
        let expected = ReactionRules.summary(target: Self.target, candidates: history)
        // When it arrives shuffled, with duplicates, 25 times
        for _ in 0..<25 {
            var arrival = history + history.prefix(Int(random.next() % 20))
            arrival.shuffle(using: &random)
            // Then every order gives the same summary and groups
            let summary = ReactionRules.summary(target: Self.target, candidates: arrival)
            #expect(summary == expected)
            for sort in ReactionSort.allCases {
                #expect(
                    summary.groups(viewer: F.bob.publicKey, sortedBy: sort)
                        == expected.groups(viewer: F.bob.publicKey, sortedBy: sort))
            }
        }
        #expect(!expected.reactions.isEmpty)
    }
}
