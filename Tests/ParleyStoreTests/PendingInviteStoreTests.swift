import GRDB
import ParleyCore
import ParleyCrypto
@testable import ParleyStore
import Testing

/// Invites held for the user: bounded per creator and overall, trimmed in arrival order, and a
/// re-pushed invite changes nothing.
struct PendingInviteStoreTests {
    private func invite(by creator: Identity, to me: PeerID, _ index: Int) throws -> ChatInvite {
        try ChatInvite.create(by: creator, title: "Invite \(index)", members: [me], createdAtMillis: 0)
    }

    @Test func aReheldOrDeclinedInviteIsKnownAndWritesNothing() async throws {
        let (store, me, stranger) = (
            try MessageStore.inMemory(), try Identity.generate().publicKey, try Identity.generate()
        )
        let invite = try invite(by: stranger, to: me, 0)
        #expect(try await store.holdInvite(invite, from: stranger.publicKey, receivedAtMillis: 1) == .held(dropped: 0))
        #expect(try await store.holdInvite(invite, from: stranger.publicKey, receivedAtMillis: 2) == .known)
        #expect(try store.heldInvite(invite.id) == HeldInvite(state: .pending, creator: stranger.publicKey))
        try await store.declineInvite(invite.id)
        #expect(try await store.holdInvite(invite, from: stranger.publicKey, receivedAtMillis: 3) == .known)
        #expect(try store.heldInvite(invite.id)?.state == .declined)
        #expect(try store.pendingInvites().isEmpty)
    }

    @Test func oneCreatorKeepsAtMostTenPendingAndLosesItsOldestFirst() async throws {
        let (store, me) = (try MessageStore.inMemory(), try Identity.generate().publicKey)
        let (mallory, alice) = (try Identity.generate(), try Identity.generate())
        let fromAlice = try invite(by: alice, to: me, 0)
        _ = try await store.holdInvite(fromAlice, from: alice.publicKey, receivedAtMillis: 0)
        var made: [ChatID] = []
        var dropped = 0
        for index in 0..<15 {
            let invite = try invite(by: mallory, to: me, index)
            made.append(invite.id)
            // All at the same time: only the insertion order tells which is oldest
            if case let .held(count) = try await store.holdInvite(invite, from: mallory.publicKey, receivedAtMillis: 5)
            {
                dropped += count
            }
        }
        #expect(dropped == 5)
        #expect(
            try store.pendingInvites().map(\.invite.id) == [fromAlice.id]
                + made.suffix(MessageStore.maxPendingInvitesPerCreator))
    }

    @Test func pastAHundredTheOldestInArrivalOrderIsDropped() async throws {
        let (store, me) = (try MessageStore.inMemory(), try Identity.generate().publicKey)
        var made: [ChatID] = []
        var dropped = 0
        for creatorIndex in 0..<11 {
            let creator = try Identity.generate()
            for index in 0..<10 {
                let invite = try invite(by: creator, to: me, creatorIndex * 10 + index)
                made.append(invite.id)
                if case let .held(count) = try await store.holdInvite(
                    invite, from: creator.publicKey, receivedAtMillis: 0)
                {
                    dropped += count
                }
            }
        }
        #expect(dropped == 10)
        #expect(try store.pendingInvites().map(\.invite.id) == Array(made.suffix(MessageStore.maxPendingInvites)))
    }

    @Test func theCreatorWaitsForTheMembersThatHaveNotAcceptedAndOnlyMembersCanAccept() async throws {
        // Given Alice's chat with Bob and Carol: she accepted it by creating it
        let fixture = try await StoreFixture.make()
        let stranger = try Identity.generate().publicKey
        let waiting = [fixture.bob.publicKey, fixture.carol.publicKey].sorted()
        #expect(try fixture.store.membersWaiting(chat: fixture.chat) == waiting)

        // When Bob and a stranger accept it, and Bob again
        try await fixture.store.recordAcceptances([
            (fixture.chat, fixture.bob.publicKey), (fixture.chat, stranger), (fixture.chat, fixture.bob.publicKey),
        ])

        // Then only Carol is waited for, and the stranger's acceptance was not kept
        #expect(try fixture.store.membersWaiting(chat: fixture.chat) == [fixture.carol.publicKey])
        let accepted = try fixture.store.read("counting acceptances") { db in try ChatAcceptanceRecord.fetchCount(db) }
        #expect(accepted == 2)
    }
}
