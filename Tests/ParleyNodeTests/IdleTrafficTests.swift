import ParleyCore
import ParleyCrypto
@testable import ParleyNode
import ParleyStore
import ParleyTestKit
import Testing

/// An idle chat costs no sync traffic: once members' vectors agree, the periodic round asks no one,
/// and only presence heartbeats flow; a new message makes them ask again.
struct IdleTrafficTests {
    func dataDatagrams(_ bed: HostileBed) -> Int {
        bed.peers.reduce(0) { total, sender in
            total
                + bed.peers.filter { $0.identity.publicKey != sender.identity.publicKey }
                .reduce(0) { $0 + bed.captured(from: sender, to: $1, type: 3).count }
        }
    }

    /// Alice writes, `settling` passes so members hear each other's vectors, then 10 s pass with nobody
    /// writing: returns the data datagrams of those 10 s, after checking that a message written then
    /// still reaches every member.
    func datagramsWhileQuiet(_ bed: HostileBed, settling: Duration) async throws -> Int {
        _ = try await bed.alice.node.sendText(chat: bed.invite.id, "hello")
        try await bed.settle()
        try await bed.pump.advance(by: settling, step: .milliseconds(250))
        let before = dataDatagrams(bed)
        try await bed.pump.advance(by: .seconds(10), step: .milliseconds(250))
        let idle = dataDatagrams(bed) - before

        let text = try await bed.mallory.node.sendText(chat: bed.invite.id, "after the quiet")
        try await bed.settle()
        for member in bed.peers { #expect(try member.node.store.message(text.message.id) != nil) }
        return idle
    }

    @Test func membersWhoseVectorsAgreeSendOnlyHeartbeats() async throws {
        let bed = try await HostileBed.make()
        try await bed.running {
            // When 10 s pass with nobody writing, two rounds after a message
            let idle = try await datagramsWhileQuiet(bed, settling: .seconds(5))
            // Then only heartbeats went out (each of 3 nodes to 2 peers, every 5 s: 12), no sync rounds
            // (5 rounds of requests and replies would add 60)
            #expect(idle <= 12, "\(idle) datagrams while idle")
        }
    }

    @Test func convergedMembersAskedOnlyInTurnStopAskingInBothDirections() async throws {
        // Given rounds that ask one member at a time, as in a chat far larger than the fanout
        let bed = try await HostileBed.make(syncFanout: 1)
        try await bed.running {
            // When 10 s pass with nobody writing, four rounds after a message (every member has asked
            // each of the two others once since)
            let idle = try await datagramsWhileQuiet(bed, settling: .seconds(9))
            // Then only heartbeats went out: a member answered "nothing missing" is not asked again
            // (before, whoever had not been asked back kept asking: 3 requests and replies a round)
            #expect(idle <= 12, "\(idle) datagrams while idle")
        }
    }
}

/// A sync reply's "more" is answered and followed up before its batch is stored.
struct SyncFollowUpTests {
    @Test func aFollowUpIsTheRequestInFlightSoItsNothingMissingAnswerIsRecorded() async throws {
        let bed = try await HostileBed.make()
        let (alice, mallory, chat) = (bed.alice.node, bed.mallory, bed.invite.id)
        try await bed.running {
            // Given alice has forgotten what mallory holds
            alice.syncProgress.forgetReceived(from: mallory.identity.publicKey)
            let vector = try alice.store.versionVector(chat: chat)
            #expect(!alice.syncProgress.holds(vector, peer: mallory.identity.publicKey, chat: chat))
            // When mallory ends a reply with "more", alice follows up, and mallory (holding the same) answers
            await mallory.node.transmit([.syncEnd(chat: chat, .more)], to: bed.alice.identity.publicKey)
            try await bed.settle()
            // Then that answer, to the follow-up, tells alice mallory holds her vector
            #expect(alice.syncProgress.holds(vector, peer: mallory.identity.publicKey, chat: chat))
        }
    }

    @Test func onlyMembersMessagesOfTheChatCountInAFollowUpsVector() throws {
        let (alice, bob, outsider) = (try Identity.generate(), try Identity.generate(), try Identity.generate())
        let chat = try ChatInvite.create(by: alice, title: "Ahead", members: [bob.publicKey], createdAtMillis: 0).id
        let other = try ChatInvite.create(by: alice, title: "Elsewhere", members: [bob.publicKey], createdAtMillis: 0)
            .id
        func message(_ author: Identity, _ chat: ChatID, _ sequence: UInt64) throws -> Message {
            try MessageDraft(
                chat: chat, author: author.publicKey, sequence: sequence, lamport: sequence, timestampMillis: 0,
                tag: .text, content: [1]
            )
            .signed(by: author)
        }
        let arriving = [
            try message(bob, chat, 3), try message(bob, chat, 4), try message(alice, chat, 1),
            try message(outsider, chat, 1), try message(bob, other, 9),
        ]
        let stored: [PeerID: AuthorHoldings] = [bob.publicKey: .contiguous(2)]
        let vector = Node.anticipated(stored, chat: chat, adding: arriving, members: [alice.publicKey, bob.publicKey])
        #expect(vector == [bob.publicKey: .contiguous(4), alice.publicKey: .contiguous(1)])
    }
}

/// The rounds' memory of what each member holds: an answer counts only for the request it answers.
struct SyncProgressTests {
    let peer: PeerID
    let chat: ChatID
    let older: [PeerID: AuthorHoldings]
    let newer: [PeerID: AuthorHoldings]

    init() throws {
        let (alice, bob, carol) = (try Identity.generate(), try Identity.generate(), try Identity.generate())
        peer = bob.publicKey
        chat = try ChatInvite.create(by: alice, title: "Progress", members: [bob.publicKey], createdAtMillis: 0).id
        older = [carol.publicKey: .contiguous(1)]
        newer = [carol.publicKey: .contiguous(2)]
    }

    @Test func aNothingMissingAnswerToTheOneRequestInFlightRecordsItsVector() {
        let progress = SyncProgress()
        progress.asked(newer, peer: peer, chat: chat)
        progress.answered(.nothingMissing, by: peer, chat: chat)
        #expect(progress.holds(newer, peer: peer, chat: chat))
        // A new session forgets it
        progress.forgetReceived(from: peer)
        #expect(!progress.holds(newer, peer: peer, chat: chat))
    }

    @Test func anAnswerWhileTwoRequestsAreInFlightRecordsNothing() {
        // Given a request whose answer may have been lost, then a newer one
        let progress = SyncProgress()
        progress.asked(older, peer: peer, chat: chat)
        progress.asked(newer, peer: peer, chat: chat)
        // When a "nothing missing" comes, it may answer the older one: the peer may hold only that
        progress.answered(.nothingMissing, by: peer, chat: chat)
        #expect(!progress.holds(newer, peer: peer, chat: chat))
        #expect(!progress.holds(older, peer: peer, chat: chat))
        // And the next request, alone in flight, is matched again
        progress.asked(newer, peer: peer, chat: chat)
        progress.answered(.nothingMissing, by: peer, chat: chat)
        #expect(progress.holds(newer, peer: peer, chat: chat))
    }

    @Test func otherAnswersAndUnaskedOnesRecordNothing() {
        let progress = SyncProgress()
        progress.answered(.nothingMissing, by: peer, chat: chat) // never asked
        progress.asked(newer, peer: peer, chat: chat)
        progress.answered(.done, by: peer, chat: chat)
        progress.answered(.nothingMissing, by: peer, chat: chat) // a second answer to the one request
        #expect(!progress.holds(newer, peer: peer, chat: chat))
    }
}

/// The periodic round asks a few members at a time, in turn, so a large chat's repair traffic grows
/// with its size, not its square.
struct SyncFanoutTests {
    @Test func eachMemberIsAskedOncePerTurnOfTheRounds() throws {
        let members = try (0..<10).map { _ in try Identity.generate().publicKey }.sorted()
        var asked: [PeerID: Int] = [:]
        for round in 0..<5 { // 10 members, 4 a round: 2.5 turns
            let chosen = Node.inTurn(members, round: round, fanout: 4)
            #expect(chosen.count == 4 && Set(chosen).count == 4)
            for member in chosen { asked[member, default: 0] += 1 }
        }
        #expect(asked.count == 10 && asked.values.allSatisfy { $0 == 2 })
        #expect(Node.inTurn(Array(members.prefix(3)), round: 7, fanout: 4) == Array(members.prefix(3)))
    }
}
