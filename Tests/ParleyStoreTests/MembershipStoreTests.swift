import ParleyCore
import ParleyCrypto
@testable import ParleyStore
import ParleyTestKit
import Testing

/// Keyed chats in the store: epochs decide who may post, the newest change decides who is in,
/// content is opened on read, and none of it depends on the order things arrive in.
struct MembershipStoreTests {
    let alice = (try? Identity.generate())!, bob = (try? Identity.generate())!, carol = (try? Identity.generate())!
    let key0 = (try? ChatKey.generate())!, key1 = (try? ChatKey.generate())!
    let invite: ChatInvite
    let storeOfAlice = (try? MessageStore.inMemory())!

    init() throws {
        invite = try ChatInvite.create(
            by: alice, title: "Team", members: [bob.publicKey, carol.publicKey], key: key0, createdAtMillis: 0)
    }

    func store(holding keys: [EpochKey]) async throws -> MessageStore {
        let store = try MessageStore.inMemory()
        _ = try await store.saveChat(invite, key: keys.first, joinedAtMillis: 0)
        return store
    }

    func post(_ author: Identity, seq: UInt64, epoch: UInt32, _ text: String) throws -> Message {
        let key = EpochKey(epoch: epoch, key: epoch == 0 ? key0 : key1)
        let content = SealedContent.seal(
            Array(text.utf8), with: key, chat: invite.id, author: author.publicKey, sequence: seq)
        return try MessageDraft(
            chat: invite.id, author: author.publicKey, sequence: seq, lamport: seq, timestampMillis: 0, tag: .text,
            content: content
        )
        .signed(by: author)
    }

    /// Alice removes Carol: epoch 1, key1 for Alice and Bob only.
    func removal(by author: Identity? = nil, seq: UInt64 = 1) throws -> Message {
        let change = try MembershipChange.make(epoch: 1, members: [alice.publicKey, bob.publicKey]) { _ in
            [EpochKey(epoch: 1, key: key1)]
        }
        let author = author ?? alice
        return try MessageDraft(
            chat: invite.id, author: author.publicKey, sequence: seq, lamport: 10, timestampMillis: 0, tag: .membership,
            content: change.encoded()
        ).signed(by: author)
    }

    func insert(_ messages: [Message], into store: MessageStore, grants: [MessageID: [EpochKey]] = [:]) async throws
        -> [InsertOutcome]
    {
        try await store.insert(messages, grants: grants, receivedAtMillis: 0, ownAuthor: bob.publicKey)
    }

    @Test func contentIsOpenedOnReadAndUnreadableWithoutTheKey() async throws {
        // Given bob's store, which holds key0, and another that holds no key
        let withKey = try await store(holding: [EpochKey(epoch: 0, key: key0)])
        let without = try await store(holding: [])
        let hello = try post(carol, seq: 1, epoch: 0, "hello")
        _ = try await insert([hello], into: withKey)
        _ = try await insert([hello], into: without)
        // Then the first reads the text, the second only knows it is sealed
        let read = try #require(try withKey.message(hello.id))
        #expect(read.message.text == "hello" && !read.isSealed)
        #expect(read.message.encoded == hello.encoded)
        let sealed = try #require(try without.message(hello.id))
        #expect(sealed.isSealed && sealed.message.content.isEmpty)
    }

    @Test func aMembershipReadBeforeAChangeIsNotServedAfterIt() async throws {
        // Given bob's node has read (and so cached) the members, with key0 to seal with
        let store = try await store(holding: [EpochKey(epoch: 0, key: key0)])
        #expect(try store.membership(of: invite.id)?.members.contains(carol.publicKey) == true)
        _ = try await insert([try post(carol, seq: 1, epoch: 0, "hi")], into: store) // a write that keeps memberships
        #expect(store.membershipCache.count == 1)

        // When alice's removal of carol is stored
        let removal = try removal()
        _ = try await insert([removal], into: store, grants: [removal.id: [EpochKey(epoch: 1, key: key1)]])

        // Then the next read has the new members and the new sealing key
        let after = try #require(try store.membership(of: invite.id))
        #expect(after.members == [alice.publicKey, bob.publicKey].sorted())
        #expect(after.sealingKey?.epoch == 1)
    }

    @Test func aMembershipReadThatOverlapsAChangeIsNotKept() {
        // Given a read that a membership-changing write overlaps
        let cache = MembershipCache()
        let chat = invite.id
        let stale = ChatMembership(
            chat: chat, kind: .group, creator: alice.publicKey, isKeyed: true, epoch: 0, members: [], sealingKey: nil)
        let before = cache.lookup(chat)
        cache.changeBegins()
        cache.changeEnds()
        cache.keep(stale, readAt: before.generation)
        // Then it is not kept; an undisturbed read is, and is served next
        #expect(cache.lookup(chat).membership == nil)
        cache.keep(stale, readAt: cache.lookup(chat).generation)
        #expect(cache.lookup(chat).membership?.epoch == 0)
    }

    /// Alice's own change to `members`, as her send path stores it.
    func ownChange(to members: [PeerID], in chat: ChatID, seq: UInt64) async throws -> DeliveryState? {
        let change = try MembershipChange.make(epoch: 1, members: members) { _ in [EpochKey(epoch: 1, key: key1)] }
        let message = try MessageDraft(
            chat: chat, author: alice.publicKey, sequence: seq, lamport: 10, timestampMillis: 0, tag: .membership,
            content: change.encoded()
        ).signed(by: alice)
        let store = storeOfAlice
        let outcomes = try await store.insert(
            [message], grants: [message.id: [EpochKey(epoch: 1, key: key1)]], receivedAtMillis: 0,
            ownAuthor: alice.publicKey, ownSent: true)
        let stored = outcomes.first?.storedMessage
        #expect(try store.message(message.id)?.state == stored?.state)
        return stored?.state
    }

    @Test func anOwnChangeIsDeliveredByTheMembersItLeavesNotThoseItStartedFrom() async throws {
        // Given alice's group with bob and carol, and a group of her own alone
        _ = try await storeOfAlice.saveChat(invite, key: EpochKey(epoch: 0, key: key0), joinedAtMillis: 0)
        let alone = try ChatInvite.create(by: alice, title: "Solo", members: [], key: key0, createdAtMillis: 0)
        _ = try await storeOfAlice.saveChat(alone, key: EpochKey(epoch: 0, key: key0), joinedAtMillis: 0)

        // When she removes both from the first, and adds bob to the second
        let removal = try await ownChange(to: [alice.publicKey], in: invite.id, seq: 1)
        let addition = try await ownChange(to: [alice.publicKey, bob.publicKey], in: alone.id, seq: 1)

        // Then the removal needs no ack (no one else is left), while the addition waits for bob's
        #expect(removal == .delivered)
        #expect(addition == .sent)
        #expect(try storeOfAlice.undelivered(author: alice.publicKey).map(\.missing) == [[bob.publicKey]])
    }

    @Test func aRemovalChangesTheMembersAndKeepsTheNewKey() async throws {
        let store = try await store(holding: [EpochKey(epoch: 0, key: key0)])
        let removal = try removal()
        #expect(
            try await insert([removal], into: store, grants: [removal.id: [EpochKey(epoch: 1, key: key1)]]).first?
                .storedMessage != nil)
        let membership = try #require(try store.membership(of: invite.id))
        #expect(membership.epoch == 1)
        #expect(membership.members == [alice.publicKey, bob.publicKey].sorted())
        #expect(try store.membership(of: invite.id)?.sealingKey?.epoch == 1)
        #expect(try store.chatKeys(invite.id).map(\.epoch) == [0, 1])
    }

    @Test func aPostCountsOnlyIfItsAuthorWasAMemberOfItsEpoch() async throws {
        let store = try await store(holding: [EpochKey(epoch: 0, key: key0)])
        let removal = try removal()
        let carolBefore = try post(carol, seq: 1, epoch: 0, "before")
        let carolAfter = try post(carol, seq: 2, epoch: 1, "after")
        let bobAfter = try post(bob, seq: 1, epoch: 1, "after")
        // When Bob's epoch-1 post arrives before the change, it waits (not stored, not refused)
        #expect(try await insert([bobAfter], into: store) == [.unknownEpoch])
        // and once the change is in, Carol's epoch-0 post still counts, her epoch-1 one does not
        let outcomes = try await insert([carolBefore, carolAfter, bobAfter, removal], into: store)
        #expect(
            outcomes[0].storedMessage != nil && outcomes[2].storedMessage != nil && outcomes[3].storedMessage != nil)
        #expect(outcomes[1] == .notMember)
    }

    @Test func anEpochReDecidedByASecondChangeAdmitsByItsNewMembers() async throws {
        // Given two changes for epoch 1 (a creator writing twice): one keeps Bob, the other Carol
        let keepsCarol = try MembershipChange.make(epoch: 1, members: [alice.publicKey, carol.publicKey]) { _ in
            [EpochKey(epoch: 1, key: key1)]
        }
        let other = try MessageDraft(
            chat: invite.id, author: alice.publicKey, sequence: 2, lamport: 11, timestampMillis: 0, tag: .membership,
            content: keepsCarol.encoded()
        ).signed(by: alice)
        let removal = try removal()
        let (winner, loser) = removal.id < other.id ? (removal, other) : (other, removal)
        let store = try await store(holding: [EpochKey(epoch: 0, key: key0)])
        // When the losing change comes first, a post by the member only the winner keeps is refused
        // (which reads, and keeps in memory, epoch 1's members)
        let onlyInWinner =
            winner.id == removal.id ? try post(bob, seq: 1, epoch: 1, "x") : try post(carol, seq: 1, epoch: 1, "x")
        #expect(try await insert([loser], into: store).first?.storedMessage != nil)
        #expect(try await insert([onlyInWinner], into: store) == [.notMember])
        // Then once the winner re-decides the epoch, the same post is admitted
        #expect(try await insert([winner], into: store).first?.storedMessage != nil)
        #expect(try await insert([onlyInWinner], into: store).first?.storedMessage != nil)
    }

    @Test func onlyTheCreatorChangesMembers() async throws {
        let store = try await store(holding: [EpochKey(epoch: 0, key: key0)])
        #expect(try await insert([try removal(by: bob)], into: store) == [.notMember])
        #expect(try store.membership(of: invite.id)?.members.count == 3)
    }

    @Test func unsealedContentInAKeyedChatIsRefused() async throws {
        let store = try await store(holding: [])
        let plain = try MessageDraft(
            chat: invite.id, author: bob.publicKey, sequence: 1, lamport: 1, timestampMillis: 0, tag: .text,
            content: [1]
        )
        .signed(by: bob)
        #expect(try await insert([plain], into: store) == [.malformedContent])
    }

    @Test(arguments: [1, 2, 3] as [UInt64]) func storesAgreeWhateverTheArrivalOrder(seed: UInt64) async throws {
        // Given two competing changes for epoch 1 (which only a creator writing twice makes) and posts
        // by authors both lists agree on
        let other = try MembershipChange.make(epoch: 1, members: [alice.publicKey, carol.publicKey]) { _ in
            [EpochKey(epoch: 1, key: key1)]
        }
        let competing = try MessageDraft(
            chat: invite.id, author: alice.publicKey, sequence: 2, lamport: 11, timestampMillis: 0, tag: .membership,
            content: other.encoded()
        ).signed(by: alice)
        let removal = try removal() // grants are sealed with fresh randomness: build it once
        let all = [
            removal, competing, try post(carol, seq: 1, epoch: 0, "a"), try post(alice, seq: 3, epoch: 1, "b"),
            try post(bob, seq: 2, epoch: 0, "d"),
        ]
        // When two stores receive them one at a time in different orders (and retry what had to wait)
        var random = SplitMix64(seed: seed)
        var results: [(members: [PeerID], ids: Set<MessageID>)] = []
        for round in 0..<2 {
            let store = try await store(holding: [EpochKey(epoch: 0, key: key0)])
            var pending = round == 0 ? all : all.shuffled(using: &random)
            for _ in 0..<all.count where !pending.isEmpty {
                var waiting: [Message] = []
                for message in pending where try await insert([message], into: store) == [.unknownEpoch] {
                    waiting.append(message)
                }
                pending = waiting
            }
            let ids = Set(try store.messages(matching: MessageCriteria(chat: invite.id)).map(\.id))
            results.append((try #require(try store.membership(of: invite.id)).members, ids))
        }
        // Then both hold the same messages and the same members
        #expect(results[0].members == results[1].members)
        #expect(results[0].ids == results[1].ids)
        let winner = min(removal.id, competing.id)
        #expect(
            results[0].members
                == (winner == competing.id ? [alice.publicKey, carol.publicKey] : [alice.publicKey, bob.publicKey])
                .sorted())
    }

    @Test(arguments: [false, true]) func onlyTheWinningChangeOfAnEpochLeavesItsKey(winnerFirst: Bool) async throws {
        // Given two changes for epoch 1 with different keys, both granting this node a key
        let otherKey = try ChatKey.generate()
        let other = try MembershipChange.make(epoch: 1, members: [alice.publicKey, bob.publicKey, carol.publicKey]) {
            _ in
            [EpochKey(epoch: 1, key: otherKey)]
        }
        let competing = try MessageDraft(
            chat: invite.id, author: alice.publicKey, sequence: 2, lamport: 11, timestampMillis: 0, tag: .membership,
            content: other.encoded()
        ).signed(by: alice)
        let removal = try removal()
        let grants = [removal.id: [EpochKey(epoch: 1, key: key1)], competing.id: [EpochKey(epoch: 1, key: otherKey)]]
        let (winner, loser) = removal.id < competing.id ? (removal, competing) : (competing, removal)
        // When they arrive in either order
        let store = try await store(holding: [EpochKey(epoch: 0, key: key0)])
        for message in winnerFirst ? [winner, loser] : [loser, winner] {
            _ = try await insert([message], into: store, grants: grants)
        }
        // Then the node holds exactly the winner's key for epoch 1 and seals with it
        let epochOne = try store.chatKeys(invite.id).filter { $0.epoch == 1 }
        let expected = (winner.id == removal.id ? key1 : otherKey).withRawBytes { $0 }
        #expect(epochOne.map { $0.key.withRawBytes { $0 } } == [expected])
        #expect(try store.membership(of: invite.id)?.sealingKey?.key.withRawBytes { $0 } == expected)
    }
}
