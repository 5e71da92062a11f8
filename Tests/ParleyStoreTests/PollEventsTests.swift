import ParleyCore
import ParleyCrypto
@testable import ParleyStore
import ParleyTestKit
import Testing

/// The yes/no tally read from the reference index must be the tally of the decoded messages, for
/// any history: wrong reference tags, other chats, closes by others, equal clocks.
struct PollEventsTests {
    @Test(arguments: [1, 2, 3, 4] as [UInt64]) func theIndexedTallyIsTheTallyOfTheMessages(seed: UInt64) async throws {
        // Given alice's poll and a random history around it
        let f = try await StoreFixture.make()
        let poll = try f.message(by: f.alice, seq: 1, tag: .poll, text: "Pizza?")
        let other = try f.message(by: f.bob, seq: 1, text: "not a poll")
        try await f.insert(poll, other)
        var random = SplitMix64(seed: seed)
        var sequences: [PeerID: UInt64] = [f.alice.publicKey: 1, f.bob.publicKey: 1, f.carol.publicKey: 0]
        var history: [Message] = []
        for _ in 0..<150 {
            let author = [f.alice, f.bob, f.carol][Int(random.next() % 3)]
            let tag = [Tag.pollVoteUp, .pollVoteDown, .pollVoteUp, .pollVoteDown, .pollClose, .text][
                Int(random.next() % 6)]
            let referenceTag = random.next() % 5 == 0 ? Tag.pollVoteDown : tag // sometimes the wrong reference tag
            let target = random.next() % 7 == 0 ? other.id : poll.id
            sequences[author.publicKey, default: 0] += 1
            history.append(
                try f.message(
                    // Closes come late enough that some votes precede them
                    by: author, seq: sequences[author.publicKey]!,
                    lamport: random.next() % 40 + (tag == .pollClose ? 20 : 2), tag: tag,
                    references: [MessageReference(id: target, tag: referenceTag)]))
        }
        _ = try await f.store.insert(history, receivedAtMillis: 0, ownAuthor: f.alice.publicKey)

        // When the tally is computed both ways
        let related = try f.store.messages(matching: MessageCriteria(chat: f.chat, referencing: poll.id)).map(\.message)
        let decoded = PollRules.tally(poll: poll, candidates: related)
        let events = try f.store.pollEvents(chat: f.chat, poll: poll.id)
        let indexed = PollRules.tally(poll: poll, votes: events.votes, closes: events.closes)

        // Then they are the same, and the history did exercise the rule
        #expect(indexed == decoded)
        #expect(decoded.up + decoded.down > 0)
    }
}
