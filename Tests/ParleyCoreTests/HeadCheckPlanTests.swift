import ParleyCore
import ParleyCrypto
import Testing

/// Which heads of a delivery are verified: the top of each linked run, one head at least every 64
/// sequences below it, and every head of a forked or broken run.
struct HeadCheckPlanTests {
    /// Alice's messages first...first+count-1, linked, each signed unless `signed` says otherwise.
    static func run(_ count: Int, startingAt first: UInt64 = 1, signed: (UInt64) -> Bool = { _ in true }) throws
        -> [Message]
    {
        try ChainAssemblerTests.batch(count, startingAt: first).map { message in
            signed(message.sequence) ? try message.signedAsHead(by: Fixtures.alice) : message
        }
    }

    static func sequences(_ indices: [Int], of messages: [Message]) -> [UInt64] {
        indices.map { messages[$0].sequence }.sorted()
    }

    @Test func aRunOfHeadsIsCheckedAtItsTopAndEverythingBelowIsCoveredByIt() throws {
        let messages = try Self.run(10).shuffled()
        let plan = HeadCheckPlan(messages)
        #expect(Self.sequences(plan.checked, of: messages) == [10])
        #expect(plan.covered.count == 9 && plan.covered.values.allSatisfy { messages[$0].sequence == 10 })
    }

    @Test func aLongRunKeepsACheckedHeadEverySixtyFourSequences() throws {
        let messages = try Self.run(200)
        let plan = HeadCheckPlan(messages)
        #expect(Self.sequences(plan.checked, of: messages) == [8, 72, 136, 200])
        #expect(plan.covered.count == 196)
        for (covered, checker) in plan.covered {
            let distance = messages[checker].sequence - messages[covered].sequence
            #expect(distance >= 1 && distance < HeadCheckPlan.spacing)
        }
    }

    @Test func chainedMessagesBetweenHeadsLinkTheRun() throws {
        let messages = try Self.run(8) { $0 == 4 || $0 == 8 }
        let plan = HeadCheckPlan(messages)
        #expect(Self.sequences(plan.checked, of: messages) == [8])
        #expect(plan.covered.mapValues { messages[$0].sequence } == [3: 8])
    }

    @Test func aGapOrAMessageThatNamesAnotherPreviousStartsANewRun() throws {
        var messages = try Self.run(10)
        messages.remove(at: 5) // sequence 6 never arrived
        #expect(Self.sequences(HeadCheckPlan(messages).checked, of: messages) == [5, 10])

        let unlinked = try MessageDraft(
            chat: Fixtures.invite.id, author: Fixtures.alice.publicKey, sequence: 6, previous: nil, lamport: 6,
            timestampMillis: 42, tag: .text, content: []
        ).signed(by: Fixtures.alice)
        messages.insert(unlinked, at: 5)
        // 7 names the real 6, not this one: the run breaks above it; 6 names nothing: it breaks below.
        #expect(Self.sequences(HeadCheckPlan(messages).checked, of: messages) == [5, 6, 10])
    }

    @Test func aForkedSequenceHasEveryHeadOfItsAuthorChecked() throws {
        var messages = try Self.run(5)
        let other = try MessageDraft(
            chat: Fixtures.invite.id, author: Fixtures.alice.publicKey, sequence: 3, previous: messages[1].id,
            lamport: 3,
            timestampMillis: 42, tag: .pollVoteUp, content: []
        ).signed(by: Fixtures.alice)
        messages.append(other)
        let plan = HeadCheckPlan(messages)
        #expect(plan.checked.count == 6 && plan.covered.isEmpty)
    }

    @Test func eachAuthorsRunIsPlannedOnItsOwn() throws {
        let bobs = try ChainAssemblerTests.batch(3, by: Fixtures.bob).map { try $0.signedAsHead(by: Fixtures.bob) }
        let messages = try Self.run(3) + bobs
        let plan = HeadCheckPlan(messages)
        #expect(Set(plan.checked.map { messages[$0].author }) == [Fixtures.alice.publicKey, Fixtures.bob.publicKey])
        #expect(plan.checked.count == 2 && plan.covered.count == 4)
        #expect(plan.covered.allSatisfy { messages[$0.key].author == messages[$0.value].author })
    }

    @Test func aCoveredHeadStoredChainedKeepsItsIdAndDecodesAsChained() throws {
        let head = try Self.run(1)[0]
        let chained = head.withoutSignature
        #expect(chained.id == head.id && !chained.isHead && chained.encoded.last == 0)
        #expect(chained.encoded.count + 64 == head.encoded.count)
        #expect(try Message(decoding: chained.encoded) == chained)
        #expect(chained.withoutSignature == chained)
    }
}
