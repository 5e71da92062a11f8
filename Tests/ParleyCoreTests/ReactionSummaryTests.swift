import ParleyCore
import ParleyCrypto
import Testing

struct ReactionSummaryTests {
    typealias F = Fixtures
    typealias R = ReactionRulesTests

    /// 👍: 3 reactions, score 3, from t=300 to t=900; ❤️: 2, score 20, t=100…200; 🎉: 2, score −4, t=500…1000; ok: 1, score 3, t=100.
    static func sample() throws -> ReactionSummary {
        let messages = [
            try R.reaction(F.alice, R.add("👍"), lamport: 2, at: 300),
            try R.reaction(F.bob, R.add("👍"), lamport: 3, at: 900),
            try R.reaction(F.carol, R.add("👍"), lamport: 4, at: 600),
            try R.reaction(F.alice, R.add("❤️", score: 10), lamport: 5, at: 100),
            try R.reaction(F.bob, R.add("❤️", score: 10), lamport: 6, at: 200),
            try R.reaction(F.carol, R.add("🎉", score: -2), lamport: 7, at: 500),
            try R.reaction(F.mallory, R.add("🎉", score: -2), lamport: 8, at: 1_000),
            try R.reaction(F.mallory, R.add("ok", score: 3), lamport: 9, at: 100),
        ]
        return ReactionRules.summary(target: R.target, candidates: messages)
    }

    @Test(arguments: [
        (ReactionSort.count, ["👍", "❤️", "🎉", "ok"]), // 3, then 2 and 2 by type bytes (E2 < F0), then 1
        (.score, ["❤️", "👍", "ok", "🎉"]), // 20, then 3 and 3 by count, then −4
        (.first, ["ok", "❤️", "👍", "🎉"]), // 100 and 100 by type bytes (6F < E2), 300, 500
        (.last, ["🎉", "👍", "❤️", "ok"]), // 1000, 900, 200, 100
    ])
    func sortsGroups(sort: ReactionSort, expected: [String]) throws {
        #expect(try Self.sample().groups(viewer: F.carol.publicKey, sortedBy: sort).map(\.type.rawValue) == expected)
    }

    @Test func groupsCarryCountsScoresTimesAndMine() throws {
        let groups = try Self.sample().groups(viewer: F.carol.publicKey)
        let thumbs = try #require(groups.first)
        #expect(
            (thumbs.count, thumbs.score, thumbs.firstAtMillis, thumbs.lastAtMillis, thumbs.mine) == (
                3, 3, 300, 900, true
            ))
        #expect(groups.map(\.mine) == [true, false, true, false])
    }

    @Test func pagesAreNewestFirstAndCursorsChainWithoutGapsOrRepeats() throws {
        let summary = try Self.sample()
        var seen: [MessageID] = []
        var cursor: PageCursor?
        repeat {
            let page = try summary.page(limit: 3, before: cursor)
            seen += page.items.map(\.message)
            cursor = page.next
            // The printed form round-trips.
            if let next = page.next { cursor = try PageCursor(parsing: next.description) }
        } while cursor != nil
        #expect(seen == summary.reactions.map(\.message))
        #expect(summary.reactions.map(\.lamport) == [9, 8, 7, 6, 5, 4, 3, 2])
    }

    @Test func pagesFilterByTypeAndAuthor() throws {
        let summary = try Self.sample()
        let thumbs = try summary.page(type: ReactionType("👍"), limit: 2)
        #expect(thumbs.items.map(\.lamport) == [4, 3])
        #expect(thumbs.next != nil)
        #expect(try summary.page(type: ReactionType("👍"), limit: 2, before: thumbs.next).items.map(\.lamport) == [2])
        #expect(try summary.page(author: F.mallory.publicKey, limit: 10).items.map(\.type.rawValue) == ["ok", "🎉"])
        #expect(try summary.page(type: ReactionType("ok"), author: F.alice.publicKey, limit: 10).items.isEmpty)
        #expect(try summary.page(limit: 8).next == nil)
    }

    @Test(arguments: ["", "12", "x-ab", "3-zz", "3-" + String(repeating: "ab", count: 31)])
    func rejectsForeignCursors(text: String) {
        #expect(throws: CoreError.self) { try PageCursor(parsing: text) }
    }
}
