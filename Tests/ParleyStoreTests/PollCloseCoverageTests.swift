import ParleyCore
import ParleyCrypto
@testable import ParleyStore
import ParleyTestKit
import Testing

/// After the creator's close, a poll counts exactly the ballots the close covers: votes sent after it
/// with backdated clocks, or filling gaps their authors left in their own sequences, never get in,
/// whatever order five nodes receive the history in.
struct PollCloseCoverageTests {
    @Test(arguments: [11, 12, 13, 14, 15, 16, 17, 18] as [UInt64])
    func fivePeersTallyExactlyTheCoveredBallotsInAnyOrder(seed: UInt64) async throws {
        // Given a random history: votes on a yes/no and an options poll, alice's closes, then backdated votes
        let h = try await CoveredHistory.make(seed: seed)
        var random = SplitMix64(seed: seed &+ 7)
        for _ in 0..<5 {
            // When one more peer receives it in its own order and batches
            let store = try MessageStore.inMemory()
            _ = try await store.saveChat(h.f.invite, joinedAtMillis: 0)
            let order = h.history.shuffled(using: &random)
            var rest = order[...]
            while !rest.isEmpty {
                let size = Int(random.next() % 16) + 1
                _ = try await store.insert(
                    Array(rest.prefix(size)), receivedAtMillis: 0, ownAuthor: h.f.alice.publicKey)
                rest = rest.dropFirst(size)
            }

            // Then the yes/no tally (from the store's columns, as the node reads it) is that of the covered votes
            let ballots = try store.pollBallots(chat: h.f.chat, poll: h.yesNo.id)
            #expect(PollRules.tally(poll: h.yesNo, openBallots: ballots.ballots, closes: ballots.closes) == nil)
            let events = try store.pollEvents(chat: h.f.chat, poll: h.yesNo.id)
            let tally = PollRules.tally(poll: h.yesNo, votes: events.votes, closes: events.closes)
            #expect(tally.closed)
            #expect(Dictionary(uniqueKeysWithValues: tally.ballots.map { ($0.voter, $0.choice) }) == h.expectedChoices)
            #expect(tally.lateVoters == h.lateYesNoVoters)

            // And so is the options poll's outcome
            let related = try store.messages(matching: MessageCriteria(chat: h.f.chat, referencing: h.options.id)).map(
                \.message)
            let outcome = PollRules.outcome(poll: h.options, spec: CoveredHistory.spec, related: related)
            #expect(
                Dictionary(uniqueKeysWithValues: outcome.ballots.map { ($0.voter, Set($0.options)) })
                    == h.expectedSelections)
            #expect(outcome.lateVoters == h.lateOptionVoters)
        }
        #expect(!h.expectedChoices.isEmpty && !h.lateYesNoVoters.isEmpty)
    }
}

/// The oracle is written from how the history was made, not from the rules: a ballot counts when it
/// was made before the close, and an author's ballot is their latest such in their own chain, by (seq, id).
private struct CoveredHistory {
    static let spec = PollSpec(question: "Where?", options: ["Lake", "Hills", "Town"])

    let f: StoreFixture
    let yesNo: Message
    let options: Message
    let history: [Message]
    let expectedChoices: [PeerID: VoteChoice]
    let expectedSelections: [PeerID: Set<String>]
    let lateYesNoVoters: Set<PeerID>
    let lateOptionVoters: Set<PeerID>

    static func make(seed: UInt64) async throws -> CoveredHistory {
        let f = try await StoreFixture.make()
        var random = SplitMix64(seed: seed)
        let yesNo = try f.message(by: f.alice, seq: 1, tag: .poll, text: "Pizza?")
        let options = try f.message(by: f.alice, seq: 2, tag: .poll, content: try spec.encoded())
        let voters = [f.alice, f.bob, f.carol]
        var next: [PeerID: UInt64] = [f.alice.publicKey: 3, f.bob.publicKey: 1, f.carol.publicKey: 1]
        var skipped: [PeerID: [UInt64]] = [:]
        var before: [Message] = [], after: [Message] = []

        func vote(_ author: Identity, seq: UInt64, lamport: UInt64) throws -> Message {
            if random.next() % 2 == 0 {
                let tag = random.next() % 2 == 0 ? Tag.pollVoteUp : .pollVoteDown
                return try f.message(
                    by: author, seq: seq, lamport: lamport, tag: tag,
                    references: [MessageReference(id: yesNo.id, tag: tag)])
            }
            let picked = ["1", "2", "3"].filter { _ in random.next() % 2 == 0 }
            return try f.message(
                by: author, seq: seq, lamport: lamport, tag: .pollVote,
                content: try PollSelection.encode(picked.isEmpty ? ["1"] : picked),
                references: [MessageReference(id: options.id, tag: .pollVote)])
        }

        // Before the close: votes with any clock; bob and carol sometimes skip a sequence number
        for _ in 0..<60 {
            let author = voters[Int(random.next() % 3)]
            if author.publicKey != f.alice.publicKey, random.next() % 10 == 0,
                skipped[author.publicKey, default: []].count < 3
            {
                skipped[author.publicKey, default: []].append(next[author.publicKey]!)
                next[author.publicKey]! += 1
            }
            before.append(try vote(author, seq: next[author.publicKey]!, lamport: random.next() % 60 + 2))
            next[author.publicKey]! += 1
        }
        // The close covers what alice holds: every sequence used so far, the skipped ones missing
        var holdings: [PeerID: AuthorHoldings] = [:]
        for (author, top) in next where top > 1 {
            var builder = AuthorHoldingsBuilder(contiguous: 0)
            for sequence in 1..<top where !(skipped[author] ?? []).contains(sequence) { _ = builder.add(sequence) }
            holdings[author] = builder.holdings
        }
        let coverage = PollCoverage(holdings: holdings).encoded()
        let closeLamport: UInt64 = 40
        var closes: [Message] = []
        for poll in [yesNo, options] {
            closes.append(
                try f.message(
                    by: f.alice, seq: next[f.alice.publicKey]!, lamport: closeLamport, tag: .pollClose,
                    content: coverage,
                    references: [MessageReference(id: poll.id, tag: .pollClose)]))
            next[f.alice.publicKey]! += 1
        }
        // After it: votes with new sequences or filling the skipped ones
        for _ in 0..<40 {
            let author = voters[Int(random.next() % 3)]
            let seq: UInt64
            if let gap = skipped[author.publicKey]?.popLast() {
                seq = gap
            } else {
                seq = next[author.publicKey]!
                next[author.publicKey]! += 1
            }
            // Mostly backdated below the close's clock, some above every earlier vote: clocks change nothing
            let lamport = random.next() % 3 == 0 ? random.next() % 20 + 100 : random.next() % closeLamport + 1
            after.append(try vote(author, seq: seq, lamport: lamport))
        }

        func latest(_ messages: [Message]) -> [PeerID: Message] {
            var latest: [PeerID: Message] = [:]
            for message in messages
            where latest[message.author].map({
                (message.sequence, message.id) > ($0.sequence, $0.id)
            }) ?? true {
                latest[message.author] = message
            }
            return latest
        }
        let isYesNo = { (message: Message) in message.tag != .pollVote }
        let choices = latest(before.filter(isYesNo)).compactMapValues { VoteChoice(tag: $0.tag) }
        let selections = latest(before.filter { !isYesNo($0) }).mapValues {
            Set((try? PollSelection.decode($0.content)) ?? [])
        }
        let lateYesNo = latest((before + after).filter(isYesNo)).values.filter { after.contains($0) }.map(\.author)
        let lateOptions = latest((before + after).filter { !isYesNo($0) }).values.filter { after.contains($0) }.map(
            \.author)
        return CoveredHistory(
            f: f, yesNo: yesNo, options: options, history: [yesNo, options] + before + closes + after,
            expectedChoices: choices,
            expectedSelections: selections, lateYesNoVoters: Set(lateYesNo), lateOptionVoters: Set(lateOptions))
    }
}
