import ParleyCore
import ParleyCrypto
@testable import ParleyStore
import ParleyTestKit
import Testing

/// The open ballots kept on insert must give the tally of the stored messages, for any history and
/// any arrival order: equal clocks, equivocation, wrong reference tags, other targets and chats,
/// closes by the creator and by others.
struct PollBallotsTests {
    @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64], [false, true])
    func theBallotTallyIsTheTallyOfTheMessagesInAnyArrivalOrder(seed: UInt64, creatorCloses: Bool) async throws {
        // Given a random history around alice's poll
        let h = try await PollHistory.make(seed: seed, creatorCloses: creatorCloses)
        var random = SplitMix64(seed: seed &+ 100)
        let shuffled = h.history.shuffled(using: &random)
        let orders: [[[Message]]] = [
            [h.history], [h.history.reversed()], [shuffled],
            shuffled.map { [$0] }, PollHistory.batches(h.history.shuffled(using: &random), using: &random),
        ]
        for batches in orders {
            // When it arrives in that order (each store keeps the first of two equivocating messages)
            let store = try await h.emptyStore()
            for batch in batches {
                _ = try await store.insert(batch, receivedAtMillis: 0, ownAuthor: h.f.alice.publicKey)
            }

            // Then the open ballots are each author's latest stored vote, closes ignored
            let related = try store.messages(matching: MessageCriteria(chat: h.f.chat, referencing: h.poll.id)).map(
                \.message)
            let open = try store.pollBallots(chat: h.f.chat, poll: h.poll.id)
            let latest = PollRules.tally(poll: h.poll, candidates: related.filter { $0.tag != .pollClose })
            #expect(Set(open.ballots.map(\.id)) == Set(latest.ballots.map(\.message)))

            // And the tally from them (every vote once the creator closed) is the tally of the messages
            let decoded = PollRules.tally(poll: h.poll, candidates: related)
            let fromBallots = PollRules.tally(poll: h.poll, openBallots: open.ballots, closes: open.closes)
            #expect((fromBallots == nil) == decoded.closed)
            let events = try store.pollEvents(chat: h.f.chat, poll: h.poll.id)
            #expect(
                (fromBallots ?? PollRules.tally(poll: h.poll, votes: events.votes, closes: events.closes)) == decoded)
            #expect(decoded.up + decoded.down > 0)
            #expect(decoded.closed == creatorCloses)
        }
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func theMigrationFillsTheBallotsOfVotesStoredBeforeIt(seed: UInt64) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("parley.sqlite")

        // Given a store on disk holding a poll's history, as the insert path left its ballots
        let h = try await PollHistory.make(seed: seed, creatorCloses: false, store: try MessageStore.open(path: path))
        _ = try await h.f.store.insert(h.history, receivedAtMillis: 0, ownAuthor: h.f.alice.publicKey)
        let maintained = try h.f.store.pollBallots(chat: h.f.chat, poll: h.poll.id)
        #expect(!maintained.ballots.isEmpty)

        // When it is put back as a store from before the migration (message rows are written alike) and reopened
        try await h.f.store.executeUnchecked(
            """
            DROP TABLE poll_ballots;
            DELETE FROM grdb_migrations WHERE identifier IN ('v3-poll-ballots', 'v11-ballots-by-chain-order');
            """)
        let migrated = try MessageStore.open(path: path).pollBallots(chat: h.f.chat, poll: h.poll.id)

        // Then the migration filled in the same ballots
        #expect(Set(migrated.ballots) == Set(maintained.ballots))
        #expect(Set(migrated.closes) == Set(maintained.closes))
    }
}

/// A voter's ballot in the store is its latest vote in its own chain, as the rules say.
struct PollBallotChainOrderTests {
    @Test func aBallotIsTheVotersLatestInItsChainWhateverClockItClaims() async throws {
        // Given alice's poll, and bob's up vote claiming a huge clock, then his down vote claiming a small one
        let f = try await StoreFixture.make()
        let poll = try f.message(by: f.alice, seq: 1, tag: .poll, text: "Pizza?")
        let up = try f.message(
            by: f.bob, seq: 1, lamport: 1 << 40, tag: .pollVoteUp,
            references: [MessageReference(id: poll.id, tag: .pollVoteUp)])
        let down = try f.message(
            by: f.bob, seq: 2, lamport: 3, tag: .pollVoteDown,
            references: [MessageReference(id: poll.id, tag: .pollVoteDown)])
        // When they arrive in either order
        for order in [[up, down], [down, up]] {
            let store = try MessageStore.inMemory()
            _ = try await store.saveChat(f.invite, joinedAtMillis: 0)
            for message in [poll] + order {
                _ = try await store.insert([message], receivedAtMillis: 0, ownAuthor: f.alice.publicKey)
            }
            // Then his kept ballot is the down vote, and the tally says so
            let open = try store.pollBallots(chat: f.chat, poll: poll.id)
            #expect(open.ballots.map(\.id) == [down.id])
            let tally = try #require(PollRules.tally(poll: poll, openBallots: open.ballots, closes: open.closes))
            #expect((tally.up, tally.down) == (0, 1))
        }
    }
}

/// Alice's poll in the fixture's chat, bob's text message, a second chat between the same people,
/// and a random history of votes and closes around them.
private struct PollHistory {
    let f: StoreFixture
    let other: ChatInvite
    let poll: Message
    let history: [Message]

    static func make(seed: UInt64, creatorCloses: Bool, store: MessageStore? = nil) async throws -> PollHistory {
        let f = try await StoreFixture.make(store: store)
        let other = try ChatInvite.create(
            by: f.alice, title: "other", members: [f.bob.publicKey, f.carol.publicKey], createdAtMillis: 0)
        _ = try await f.store.saveChat(other, joinedAtMillis: 0)
        let poll = try f.message(by: f.alice, seq: 1, tag: .poll, text: "Pizza?")
        let text = try f.message(by: f.bob, seq: 1, text: "not a poll")
        var random = SplitMix64(seed: seed)
        var sequences: [PeerID: UInt64] = [f.alice.publicKey: 1, f.bob.publicKey: 1, f.carol.publicKey: 0]
        var lamports: [PeerID: UInt64] = [:]
        var history = [poll, text]
        for index in 0..<200 {
            let author = [f.alice, f.bob, f.carol][Int(random.next() % 3)]
            var tag = [Tag.pollVoteUp, .pollVoteDown, .pollVoteUp, .pollVoteDown, .pollVoteUp, .pollClose, .text][
                Int(random.next() % 7)]
            if tag == .pollClose, author.publicKey == f.alice.publicKey, !creatorCloses { tag = .pollVoteDown }
            let referenceTag = random.next() % 6 == 0 ? Tag.pollVoteDown : tag // sometimes the wrong reference tag
            let target = random.next() % 8 == 0 ? text.id : poll.id
            let chat = random.next() % 10 == 0 ? other.id : f.chat
            // Sometimes a second message with the author's last sequence and clock: equivocation
            let equivocates = random.next() % 12 == 0 && lamports[author.publicKey] != nil
            if !equivocates { sequences[author.publicKey, default: 0] += 1 }
            // Few distinct clocks, so authors often tie; closes come late enough that some votes precede them
            let lamport = equivocates ? lamports[author.publicKey]! : random.next() % 30 + (tag == .pollClose ? 15 : 2)
            lamports[author.publicKey] = lamport
            // A close covers what its author held so far (or is empty, as nodes sent before coverage: no close)
            let coverage = PollCoverage(
                holdings: sequences.filter { $0.value > 0 }.mapValues { AuthorHoldings.contiguous($0) })
            let content = tag != .pollClose ? Array("\(index)".utf8) : random.next() % 3 == 0 ? [] : coverage.encoded()
            history.append(
                try f.message(
                    by: author, seq: sequences[author.publicKey]!, lamport: lamport, tag: tag, content: content,
                    references: [MessageReference(id: target, tag: referenceTag)], in: chat))
        }
        return PollHistory(f: f, other: other, poll: poll, history: history)
    }

    /// A fresh store that has joined both chats.
    func emptyStore() async throws -> MessageStore {
        let store = try MessageStore.inMemory()
        _ = try await store.saveChat(f.invite, joinedAtMillis: 0)
        _ = try await store.saveChat(other, joinedAtMillis: 0)
        return store
    }

    /// `messages` cut into batches of 1 to 20.
    static func batches(_ messages: [Message], using random: inout SplitMix64) -> [[Message]] {
        var batches: [[Message]] = []
        var rest = messages[...]
        while !rest.isEmpty {
            let size = Int(random.next() % 20) + 1
            batches.append(Array(rest.prefix(size)))
            rest = rest.dropFirst(size)
        }
        return batches
    }
}
